"""Rule summarise_memory_induction: every induction-head run's curves in one table, and the learning order."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import read_frames, write_job_parquet
from icdenoise.studies.memory.induction import learning_order

log = start_job(snakemake)
curves = read_frames(snakemake.input.runs)
order = learning_order(curves, snakemake.params.block)
write_job_parquet(curves, snakemake.output.curves, snakemake)
write_job_parquet(order, snakemake.output.order, snakemake)
log.info("learning order:\n%s", order.to_string(index=False))
