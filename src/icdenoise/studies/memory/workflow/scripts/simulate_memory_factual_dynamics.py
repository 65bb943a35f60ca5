"""Rule simulate_memory_factual_dynamics: gradient descent on the linear-attention factual-recall model (slide 13)."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

import pandas as pd

from icdenoise.maths.runtime import use_threads
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.studies.memory.factual import dynamics

block = snakemake.params.block
log = start_job(snakemake)
use_threads(snakemake.threads)
curves = pd.concat([dynamics(block, seed) for seed in block["seeds"]], ignore_index=True).assign(
    relations=block["relations"], answers=block["answers"])
write_job_parquet(curves, snakemake.output[0], snakemake)
log.info("last step per seed:\n%s", curves.sort_values("step").groupby("seed").tail(1).to_string(index=False))
