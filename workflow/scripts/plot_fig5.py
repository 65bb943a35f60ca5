"""Snakemake script of rule plot_fig5."""

import pandas as pd

from icdenoise.figures.fig5 import render
from icdenoise.figures.style import save_figure
from icdenoise.joblog import configure_job_logging

log = configure_job_logging(snakemake.log[0], "plot_fig5")
fig5, task = snakemake.params.fig5, snakemake.params.task
grid, points, steps = (pd.read_parquet(snakemake.input[key]) for key in ("grid", "points", "steps"))
save_figure(render(grid, points, steps, fig5["alpha"], task["sigma_z_sq"], fig5["iterations"]), snakemake.output[0])
log.info("wrote %s", snakemake.output[0])
