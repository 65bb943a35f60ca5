"""Rule summarise_memory_population: every seed's population steps in one table, and whether the probes follow the steps."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import read_frames, write_job_parquet
from icdenoise.studies.memory.induction.population_steps import steps_in_order

log = start_job(snakemake)
table = read_frames(snakemake.input.runs)
order = steps_in_order(table, snakemake.params.block["rank_threshold"])
write_job_parquet(table, snakemake.output.steps, snakemake)
write_job_parquet(order, snakemake.output.order, snakemake)
log.info("stage at which each probe is reached:\n%s", order.to_string(index=False))
