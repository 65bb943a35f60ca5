"""Rules train_memory_induction and train_memory_induction_shakespeare: one attention-only model on the bigram task
with triggers, on the block's synthetic π_b or, given the input `bigrams`, on that estimated π_b. The job saves its
state now and then and continues from it when run again (icdenoise.pipeline.checkpoints)."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.maths.runtime import resolve_device, use_threads
from icdenoise.pipeline.checkpoints import job_checkpoint
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import read_frames, write_job_parquet
from icdenoise.studies.memory.induction.training import run_name, train_run

block, wildcards = snakemake.params.block, snakemake.wildcards
layers, optimizer, seed = int(wildcards.induction_layers), wildcards.optimizer, int(wildcards.induction_seed)
log = start_job(snakemake)
use_threads(snakemake.threads)
device = resolve_device(snakemake.config["execution"]["memory"]["induction"]["device"])  # how it runs: not a param
log.info("training on %s", device)
bigrams = read_frames(snakemake.input.bigrams) if "bigrams" in snakemake.input.keys() else None
with job_checkpoint(snakemake, log, run_name(layers, optimizer, seed)) as checkpoint:
    curve = train_run(block, layers, optimizer, seed, device, bigrams, checkpoint=checkpoint)
write_job_parquet(curve, snakemake.output[0], snakemake, device=str(device))
last = curve.iloc[-1]
log.info("step %d: loss %.4f, accuracy on the second trigger occurrences %.3f", last["step"], last["loss"], last["accuracy"])
