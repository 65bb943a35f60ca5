"""Rule train_memory_mlp: the capacity of the trained one-hidden-layer MLP per width and seed, at one d. The job saves
the accuracies of the trainings done now and then and continues from them when run again
(icdenoise.pipeline.checkpoints); its steps count trainings."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.maths.runtime import use_threads
from icdenoise.pipeline.checkpoints import job_checkpoint
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.studies.memory.mlp import capacity_table

d = int(snakemake.wildcards.mlp_d)
log = start_job(snakemake)
use_threads(snakemake.threads)
with job_checkpoint(snakemake, log, f"MLP memory capacity, d = {d}") as checkpoint:
    table = capacity_table(snakemake.params.block, d, checkpoint=checkpoint)
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("capacity (mean over seeds):\n%s", table.groupby("m")["capacity"].mean().to_string())
