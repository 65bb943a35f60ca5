"""Snakemake script of rule plot_fig1."""

import pandas as pd

from icdenoise.figures.fig1 import render_fig1
from icdenoise.figures.style import save_figure
from icdenoise.joblog import configure_job_logging

log = configure_job_logging(snakemake.log[0], "plot_fig1")
save_figure(render_fig1(pd.read_parquet(snakemake.input[0]), snakemake.params.tasks), snakemake.output[0])
log.info("wrote %s", snakemake.output[0])
