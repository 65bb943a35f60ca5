"""Rule plot_fig3: figures/fig3.pdf from Parquet tables only."""

from icdenoise.warmstart import hand_over

hand_over()

import pandas as pd

from icdenoise.artifacts import read_frames
from icdenoise.joblog import configure_job_logging
from icdenoise.plotting import save_figure
from icdenoise.studies.onelayer.plots.fig3 import render

log = configure_job_logging(snakemake.log[0], "plot_fig3")
weights, losses, bayes = (read_frames(snakemake.input[key]) for key in ("weights", "losses", "bayes"))
fig3 = snakemake.params.fig3
figure = render(weights, losses, bayes, pd.read_parquet(snakemake.input.summary),
                fig3["cases"], fig3["models"], fig3["representative_seed"], fig3["initial_weights_cases"])
save_figure(figure, snakemake.output[0])
log.info("wrote %s", snakemake.output[0])
