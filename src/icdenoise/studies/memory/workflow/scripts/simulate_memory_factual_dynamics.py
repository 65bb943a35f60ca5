"""Rule simulate_memory_factual_dynamics: gradient descent on the linear-attention factual-recall model (slide 13). The
job saves its state now and then and continues from it when run again (icdenoise.pipeline.checkpoints)."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.maths.runtime import use_threads
from icdenoise.pipeline.checkpoints import job_checkpoint
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.studies.memory.factual import dynamics_curves

block = snakemake.params.block
log = start_job(snakemake)
use_threads(snakemake.threads)
with job_checkpoint(snakemake, log, "factual-recall dynamics") as checkpoint:
    curves = dynamics_curves(block, checkpoint=checkpoint).assign(relations=block["relations"], answers=block["answers"])
write_job_parquet(curves, snakemake.output[0], snakemake)
log.info("last step per seed:\n%s", curves.sort_values("step").groupby("seed").tail(1).to_string(index=False))
