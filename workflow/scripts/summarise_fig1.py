"""Snakemake script of rule summarise_fig1: one n = 3 prompt per case with both estimates."""

import pandas as pd

from icdenoise.artifacts import write_parquet
from icdenoise.datasets import read_dataset
from icdenoise.figures.fig1 import points_table
from icdenoise.joblog import configure_job_logging

log = configure_job_logging(snakemake.log[0], "summarise_fig1")
fig1, tasks = snakemake.params.fig1, snakemake.params.tasks
frames = []
for case, dataset, weights in zip(snakemake.params.order, snakemake.input.datasets, snakemake.input.weights):
    model = fig1["cases"][case]
    prompts, is_train = read_dataset(dataset)
    frames.append(points_table(case, tasks[case], prompts, is_train, pd.read_parquet(weights), model,
                               fig1["test_prompt"], fig1["representative_seed"]))
table = pd.concat(frames, ignore_index=True)
write_parquet(table, snakemake.output[0], {"fig1": fig1, "tasks": tasks})
log.info("estimates:\n%s", table[table["kind"].isin(["target", "query", "bayes", "model"])].to_string(index=False))
