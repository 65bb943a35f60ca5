"""Snakemake script of rule summarise_fig4a: the context-length sweep reduced to three tables."""

import numpy as np
import pandas as pd

from icdenoise.artifacts import read_frames, write_parquet
from icdenoise.bayes import ESTIMATORS
from icdenoise.datasets import read_dataset
from icdenoise.figures.fig4a import power_law_fit, sweep_table
from icdenoise.joblog import configure_job_logging
from icdenoise.tasks import make_task

log = configure_job_logging(snakemake.log[0], "summarise_fig4a")
task = make_task(snakemake.params.task)
oracle_rows = []
for path in snakemake.input.datasets:
    prompts, is_train = read_dataset(path)
    test = prompts.select(~is_train)
    estimate = ESTIMATORS[task.name]["oracle"](test, task)
    oracle_rows.append({"L": prompts.context.shape[1], "oracle_test_mse": float(np.mean((estimate - test.target) ** 2))})
table = sweep_table(read_frames(snakemake.input.weights), read_frames(snakemake.input.losses), pd.DataFrame(oracle_rows))
baselines = read_frames(snakemake.input.bayes)
fit = power_law_fit(table)
params = {"fig4a": snakemake.params.fig4a, "task": snakemake.params.task}
for frame, path in ((table, snakemake.output.sweep), (baselines, snakemake.output.baselines), (fit, snakemake.output.fit)):
    write_parquet(frame, path, params)
log.info("per L (mean over seeds):\n%s", table.groupby("L")[["gamma", "best_test_mse", "oracle_test_mse", "excess_mse"]].mean().to_string())
log.info("power law of the excess: %s", fit.to_dict("records")[0])
