"""Rule bisect_memory_low_rank: the bisected capacity of the low-rank memory W₁ᵀW₂ per d, m and seed."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.maths.runtime import use_threads
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.studies.memory.capacity import low_rank_table

log = start_job(snakemake)
use_threads(snakemake.threads)
table = low_rank_table(snakemake.params.block, snakemake.params.capacity)
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("capacity (mean over seeds):\n%s", table.groupby(["d", "m"])["capacity"].mean().unstack().to_string())
