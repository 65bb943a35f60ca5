"""Rule memory_summarise_induction: every induction-head run's curves in one table, and the learning order."""

from icdenoise.warmstart import hand_over

hand_over()

from icdenoise.artifacts import read_frames, write_job_parquet
from icdenoise.joblog import configure_job_logging
from icdenoise.studies.memory.induction import learning_order

log = configure_job_logging(snakemake.log[0], "memory_summarise_induction")
curves = read_frames(snakemake.input.runs)
order = learning_order(curves, snakemake.params.block)
write_job_parquet(curves, snakemake.output.curves, snakemake)
write_job_parquet(order, snakemake.output.order, snakemake)
log.info("learning order:\n%s", order.to_string(index=False))
