"""Rule memory_mlp: the capacity of the trained one-hidden-layer MLP per width and seed, at one d."""

from icdenoise.warmstart import hand_over

hand_over()

from icdenoise.artifacts import write_job_parquet
from icdenoise.joblog import configure_job_logging
from icdenoise.runtime import use_threads
from icdenoise.studies.memory.mlp import capacity_table

d = int(snakemake.wildcards.mlp_d)
log = configure_job_logging(snakemake.log[0], f"memory_mlp d={d}")
use_threads(snakemake.threads)
table = capacity_table(snakemake.params.block, d)
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("capacity (mean over seeds):\n%s", table.groupby("m")["capacity"].mean().to_string())
