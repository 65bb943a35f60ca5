"""Rule train_mssa_language: one causal character-level model, one seed; its training and validation curve and its
final losses with its parameter count. The job saves its state now and then and continues from it when run again
(icdenoise.pipeline.checkpoints)."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

import pandas as pd

from icdenoise.maths.runtime import use_threads
from icdenoise.pipeline.checkpoints import job_checkpoint
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.studies.mssa.language import run_language_model

architecture, seed = snakemake.wildcards.language_model, int(snakemake.wildcards.training_seed)
log = start_job(snakemake)
use_threads(snakemake.threads)
table = pd.read_parquet(snakemake.input.corpus)
with job_checkpoint(snakemake, log, f"{architecture} language model, seed {seed}") as checkpoint:
    curve, final = run_language_model(table, snakemake.params.block, architecture, seed, log=log, checkpoint=checkpoint)
write_job_parquet(curve, snakemake.output.curve, snakemake)
write_job_parquet(final, snakemake.output.final, snakemake)
log.info("final: %s", final[["model", "seed", "parameters", "train_loss", "val_loss", "unigram_loss"]].to_string(index=False))
