"""Rule summarise_mssa_vision: the vision models' tables, every model and seed stacked: test accuracy and parameter
count, the training curves, and the class token's attention maps (Fig. 7)."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import read_frames, write_job_parquet

log = start_job(snakemake)
accuracy = read_frames(snakemake.input.accuracy, finite=["test_accuracy", "parameters"])
write_job_parquet(accuracy, snakemake.output.accuracy, snakemake)
write_job_parquet(read_frames(snakemake.input.curves, finite=["loss", "test_accuracy"]), snakemake.output.curves, snakemake)
write_job_parquet(read_frames(snakemake.input.attention, finite=["weight"]), snakemake.output.attention, snakemake)
log.info("test accuracy by model and seed:\n%s", accuracy.pivot_table(index="seed", columns="model", values="test_accuracy").to_string())
