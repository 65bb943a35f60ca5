"""Rule train_memory_factual: one model kind's factual-recall grid (slides 10-11), from one seed."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.maths.runtime import use_threads
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.studies.memory.factual import recall_grid

block, wildcards = snakemake.params.block, snakemake.wildcards
log = start_job(snakemake)
use_threads(snakemake.threads)
grid = recall_grid(block, wildcards.factual_model, int(wildcards.factual_seed))
write_job_parquet(grid, snakemake.output[0], snakemake)
log.info("recall per grid point:\n%s", grid.to_string(index=False))
