"""Rule train_memory_factual: one model kind's factual-recall grid (slides 10-11), from one seed. The job saves its
state now and then and continues from it when run again (icdenoise.pipeline.checkpoints)."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.maths.runtime import use_threads
from icdenoise.pipeline.checkpoints import job_checkpoint
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.studies.memory.factual import recall_grid

block, wildcards = snakemake.params.block, snakemake.wildcards
log = start_job(snakemake)
use_threads(snakemake.threads)
with job_checkpoint(snakemake, log, f"factual recall, {wildcards.factual_model}, seed {wildcards.factual_seed}") as checkpoint:
    grid = recall_grid(block, wildcards.factual_model, int(wildcards.factual_seed), checkpoint=checkpoint)
write_job_parquet(grid, snakemake.output[0], snakemake)
log.info("recall per grid point:\n%s", grid.to_string(index=False))
