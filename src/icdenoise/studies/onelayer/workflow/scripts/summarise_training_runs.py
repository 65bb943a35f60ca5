"""Rule summarise_training_runs: figures/fig3.parquet from the training and closed-form tables."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import read_frames, write_job_parquet
from icdenoise.studies.onelayer.training_summary import summary_table

log = start_job(snakemake)
weights = read_frames(snakemake.input.weights, finite=["value"])
losses = read_frames(snakemake.input.losses, finite=["mse"])
bayes = read_frames(snakemake.input.bayes, finite=["mse", "sem"])
table = summary_table(weights, losses, bayes)
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("Figure 3 summary:\n%s", table.to_string(index=False, float_format=lambda x: f"{x:.4f}"))
