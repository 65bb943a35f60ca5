"""Rule plot_fig4a."""

from icdenoise.warmstart import hand_over

hand_over()

import pandas as pd

from icdenoise.joblog import configure_job_logging
from icdenoise.plotting import save_figure
from icdenoise.studies.onelayer.plots.fig4a import render

log = configure_job_logging(snakemake.log[0], "plot_fig4a")
tables = (pd.read_parquet(snakemake.input[key]) for key in ("sweep", "baselines", "fit"))
save_figure(render(*tables), snakemake.output[0])
log.info("wrote %s", snakemake.output[0])
