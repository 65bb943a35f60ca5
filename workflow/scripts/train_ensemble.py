"""Rule train_ensemble: train every seed of one configured model on one case's dataset. The job saves its state
now and then and continues from it when run again (icdenoise.pipeline.checkpoints, the config's
execution.checkpoint).

A training that diverges fails the job (TrainingDiverged), except where its training params say
`on_divergence: record`, as a sweep point's do (icdenoise.pipeline.sweeps.Point.training_params): the job
then writes the losses recorded until it stopped, and in place of its weights the divergence record
(icdenoise.records.trained.divergence)."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

import torch

from icdenoise.maths.models import make_model
from icdenoise.maths.runtime import resolve_device, use_threads
from icdenoise.maths.training import Split, TrainingDiverged, TrainingSettings, train_ensemble
from icdenoise.pipeline.checkpoints import job_checkpoint
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.records.datasets import read_dataset

case, model_name, context_length = snakemake.wildcards.case, snakemake.wildcards.model, int(snakemake.wildcards.L)
log = start_job(snakemake)
use_threads(snakemake.threads)
training, block = snakemake.params.training, snakemake.params.model
device = resolve_device(snakemake.config["execution"]["training"]["device"])  # how it runs: not a param

prompts, is_train = read_dataset(snakemake.input[0])
splits = []
for mask in (is_train, ~is_train):
    part = prompts.select(mask)
    context = torch.from_numpy(part.context)
    query = context if part.query is part.context else torch.from_numpy(part.query)
    splits.append(Split(context, query, torch.from_numpy(part.target)))
log.info("training %d seeds of %s on %s (%d threads): %d train / %d test prompts",
         len(training["seeds"]), block["architecture"], device, snakemake.threads, is_train.sum(), (~is_train).sum())
model = make_model(block, training["seeds"], prompts.context.shape[-1])
run = f"case {case}, L = {context_length}, model {model_name}"
with job_checkpoint(snakemake, log, run) as checkpoint:
    try:
        losses, weights = train_ensemble(model, *splits, training["seeds"],
                                         TrainingSettings.from_config(training, training["epochs"]), device, run=run,
                                         checkpoint=checkpoint)
    except TrainingDiverged as diverged:
        if training.get("on_divergence") != "record" or diverged.divergence is None:
            raise
        log.warning("%s; recorded as diverged (on_divergence: record)", diverged)
        losses, weights = diverged.divergence.recorded, diverged.divergence.table()
for frame, path in ((losses, snakemake.output.losses), (weights, snakemake.output.weights)):
    frame.insert(0, "model", model_name)
    frame.insert(0, "L", context_length)
    frame.insert(0, "case", case)
    write_job_parquet(frame, path, snakemake, resolved_device=str(device))
