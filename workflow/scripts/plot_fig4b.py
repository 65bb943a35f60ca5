"""Snakemake script of rule plot_fig4b."""

import pandas as pd

from icdenoise.figures.fig4b import render
from icdenoise.figures.style import save_figure
from icdenoise.joblog import configure_job_logging
from icdenoise.transfer import subspace_shift_references

log = configure_job_logging(snakemake.log[0], "plot_fig4b")
task = snakemake.params.task
figure = render(pd.read_parquet(snakemake.input[0]), subspace_shift_references(task), task["d"])
save_figure(figure, snakemake.output[0])
log.info("wrote %s", snakemake.output[0])
