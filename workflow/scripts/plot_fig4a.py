"""Snakemake script of rule plot_fig4a."""

import pandas as pd

from icdenoise.figures.fig4a import render
from icdenoise.figures.style import save_figure
from icdenoise.joblog import configure_job_logging

log = configure_job_logging(snakemake.log[0], "plot_fig4a")
table, baselines, fit = (pd.read_parquet(path) for path in snakemake.input)
task = snakemake.params.task
save_figure(render(table, baselines, fit, 1.0 / (task["sigma0_sq"] + task["sigma_z_sq"])), snakemake.output[0])
log.info("wrote %s", snakemake.output[0])
