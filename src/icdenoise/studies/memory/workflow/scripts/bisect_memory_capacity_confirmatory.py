"""Rule bisect_memory_capacity_confirmatory: the capacity search of bisect_memory_capacity for one map on the
confirmatory twins' fresh seeds, the Hebbian and one-step memories only (the twins read no noisy-input step)."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.maths.runtime import use_threads
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.studies.memory.capacity import capacity_table

map_name = snakemake.wildcards.memory_map
log = start_job(snakemake)
use_threads(snakemake.threads)
table = capacity_table(snakemake.params.block, map_name, noisy=False)
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("capacity on the fresh seeds (mean over seeds, %d bisection steps in all):\n%s", table["evaluations"].sum(),
         table.groupby(["memory", "d"])["capacity"].mean().unstack().to_string())
