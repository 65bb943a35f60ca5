"""Rule alltoken_summarise_mse."""

from icdenoise.warmstart import hand_over

hand_over()

from icdenoise.artifacts import read_frames, write_job_parquet
from icdenoise.joblog import configure_job_logging
from icdenoise.studies.alltoken.mse import summarise

log = configure_job_logging(snakemake.log[0], "alltoken_summarise_mse")
bars, by_depth = summarise(read_frames(snakemake.input.per_n, finite=["mse_over_sigma2"]), snakemake.params.depth)
write_job_parquet(bars, snakemake.output.bars, snakemake)
write_job_parquet(by_depth, snakemake.output.by_depth, snakemake)
log.info("Fig. 4(a):\n%s", bars[["estimator", "N", "L", "mse_over_sigma2", "sem", "ratio_to_bayes"]].to_string(index=False))
