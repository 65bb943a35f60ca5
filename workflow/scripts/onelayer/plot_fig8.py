"""Rule plot_fig8."""

from icdenoise.warmstart import hand_over

hand_over()

import pandas as pd

from icdenoise.joblog import configure_job_logging
from icdenoise.plotting import save_figure
from icdenoise.studies.onelayer.plots.fig8 import render

log = configure_job_logging(snakemake.log[0], "plot_fig8")
fig8 = snakemake.params.fig8
matrices, similarity = (pd.read_parquet(snakemake.input[key]) for key in ("matrices", "similarity"))
figure = render(matrices, similarity, fig8["models"], fig8["representative_seed"], snakemake.params.epochs, snakemake.params.L)
save_figure(figure, snakemake.output[0])
log.info("wrote %s", snakemake.output[0])
