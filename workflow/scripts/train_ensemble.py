"""Snakemake script of rule train_ensemble: train every seed of one model on one case's dataset."""

import torch

from icdenoise.artifacts import write_parquet
from icdenoise.datasets import read_dataset
from icdenoise.joblog import configure_job_logging
from icdenoise.runtime import resolve_device, use_threads
from icdenoise.training import Split, TrainingSettings, train_ensemble

case, model, context_length = snakemake.wildcards.case, snakemake.wildcards.model, int(snakemake.wildcards.L)
log = configure_job_logging(snakemake.log[0], f"train_ensemble {case} L={context_length} {model}")
use_threads(snakemake.threads)
training = snakemake.params.training
device = resolve_device(training["device"])

prompts, is_train = read_dataset(snakemake.input[0])
splits = [
    Split(*(torch.from_numpy(array[mask]) for array in (prompts.context, prompts.query, prompts.target)))
    for mask in (is_train, ~is_train)
]
log.info("training %d seeds on %s (%d threads): %d train / %d test prompts",
         len(training["seeds"]), device, snakemake.threads, is_train.sum(), (~is_train).sum())
losses, weights = train_ensemble(
    model, *splits, training["seeds"], TrainingSettings.from_config(training, training["epochs"]), device
)
params = {"case": case, "L": context_length, "model": model, "training": {**training, "resolved_device": str(device)}}
for frame, path in ((losses, snakemake.output.losses), (weights, snakemake.output.weights)):
    frame.insert(0, "model", model)
    frame.insert(0, "L", context_length)
    frame.insert(0, "case", case)
    write_parquet(frame, path, params)
