"""Snakemake script of rule summarise_fig1: one n = 3 prompt per case with both estimates."""

import pandas as pd

from icdenoise.artifacts import write_parquet
from icdenoise.datasets import read_dataset
from icdenoise.figures.fig1 import drawn_seed, points_table
from icdenoise.joblog import configure_job_logging

log = configure_job_logging(snakemake.log[0], "summarise_fig1")
fig1, tasks = snakemake.params.fig1, snakemake.params.tasks
frames = []
inputs = zip(snakemake.params.order, snakemake.input.datasets, snakemake.input.weights, snakemake.input.losses)
for case, dataset, weights, losses in inputs:
    model = fig1["cases"][case]
    seed = drawn_seed(pd.read_parquet(losses), fig1["representative_seed"])
    log.info("%s: drawing %s attention of seed %d", case, model, seed)
    prompts, is_train = read_dataset(dataset)
    frames.append(points_table(case, tasks[case], prompts, is_train, pd.read_parquet(weights), model, fig1["test_prompt"], seed))
table = pd.concat(frames, ignore_index=True)
write_parquet(table, snakemake.output[0], {"fig1": fig1, "tasks": tasks})
log.info("estimates:\n%s", table[table["kind"].isin(["target", "query", "bayes", "model"])].to_string(index=False))
