"""Snakemake script of rule plot_fig2."""

import pandas as pd

from icdenoise.figures.fig1 import render_fig2
from icdenoise.figures.style import save_figure
from icdenoise.joblog import configure_job_logging

log = configure_job_logging(snakemake.log[0], "plot_fig2")
task = snakemake.params.task
shrinkage = task["sigma0_sq"] / (task["sigma0_sq"] + task["sigma_z_sq"])
save_figure(render_fig2(pd.read_parquet(snakemake.input[0]), snakemake.params.fig2["case"], shrinkage), snakemake.output[0])
log.info("wrote %s", snakemake.output[0])
