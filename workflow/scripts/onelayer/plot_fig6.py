"""Rule plot_fig6."""

from icdenoise.warmstart import hand_over

hand_over()

from icdenoise.artifacts import read_frames
from icdenoise.joblog import configure_job_logging
from icdenoise.plotting import save_figure
from icdenoise.studies.onelayer.plots.fig6 import render

log = configure_job_logging(snakemake.log[0], "plot_fig6")
save_figure(render(read_frames(snakemake.input.tables), snakemake.params.cases), snakemake.output[0])
log.info("wrote %s", snakemake.output[0])
