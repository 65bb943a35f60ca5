"""Rule summarise_alltoken_mse."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import read_frames, write_job_parquet
from icdenoise.studies.alltoken.mse import summarise

log = start_job(snakemake)
bars, by_depth = summarise(read_frames(snakemake.input.per_n, finite=["mse_over_sigma2"]), snakemake.params.depth)
write_job_parquet(bars, snakemake.output.bars, snakemake)
write_job_parquet(by_depth, snakemake.output.by_depth, snakemake)
log.info("Fig. 4(a):\n%s", bars[["estimator", "N", "L", "mse_over_sigma2", "sem", "ratio_to_bayes"]].to_string(index=False))
