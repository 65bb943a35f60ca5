"""Rule plot_fig4b."""

from icdenoise.warmstart import hand_over

hand_over()

import pandas as pd

from icdenoise.joblog import configure_job_logging
from icdenoise.plotting import save_figure
from icdenoise.studies.onelayer.plots.fig4b import render

log = configure_job_logging(snakemake.log[0], "plot_fig4b")
save_figure(render(pd.read_parquet(snakemake.input[0])), snakemake.output[0])
log.info("wrote %s", snakemake.output[0])
