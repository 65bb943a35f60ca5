"""Rule train_memory_mlp: the capacity of the trained one-hidden-layer MLP per width and seed, at one d."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.maths.runtime import use_threads
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.studies.memory.mlp import capacity_table

d = int(snakemake.wildcards.mlp_d)
log = start_job(snakemake)
use_threads(snakemake.threads)
table = capacity_table(snakemake.params.block, d)
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("capacity (mean over seeds):\n%s", table.groupby("m")["capacity"].mean().to_string())
