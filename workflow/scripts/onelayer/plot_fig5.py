"""Rule plot_fig5."""

from icdenoise.warmstart import hand_over

hand_over()

import pandas as pd

from icdenoise.joblog import configure_job_logging
from icdenoise.plotting import save_figure
from icdenoise.studies.onelayer.plots.fig5 import render

log = configure_job_logging(snakemake.log[0], "plot_fig5")
grid, points, steps = (pd.read_parquet(snakemake.input[key]) for key in ("grid", "points", "steps"))
save_figure(render(grid, points, steps), snakemake.output[0])
log.info("wrote %s", snakemake.output[0])
