"""Snakemake script of rule plot_fig6."""

from icdenoise.artifacts import read_frames
from icdenoise.figures.fig6 import render
from icdenoise.figures.style import save_figure
from icdenoise.joblog import configure_job_logging

log = configure_job_logging(snakemake.log[0], "plot_fig6")
save_figure(render(read_frames(snakemake.input), snakemake.params.fig6["cases"]), snakemake.output[0])
log.info("wrote %s", snakemake.output[0])
