"""Rule memory_capacity: the bisected capacities of the Hebbian and one-step memories for one map."""

from icdenoise.warmstart import hand_over

hand_over()

from icdenoise.artifacts import write_job_parquet
from icdenoise.joblog import configure_job_logging
from icdenoise.runtime import use_threads
from icdenoise.studies.memory.capacity import capacity_table

map_name = snakemake.wildcards.memory_map
log = configure_job_logging(snakemake.log[0], f"memory_capacity {map_name}")
use_threads(snakemake.threads)
table = capacity_table(snakemake.params.block, map_name)
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("capacity (mean over seeds, %d bisection steps in all):\n%s", table["evaluations"].sum(),
         table.groupby(["memory", "d"])["capacity"].mean().unstack().to_string())
