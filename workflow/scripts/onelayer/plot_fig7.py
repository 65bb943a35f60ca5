"""Rule plot_fig7: Figure 7 from the Figure 3 training runs (no retraining)."""

from icdenoise.warmstart import hand_over

hand_over()

import pandas as pd

from icdenoise.artifacts import read_frames
from icdenoise.joblog import configure_job_logging
from icdenoise.plotting import save_figure
from icdenoise.studies.onelayer.plots.fig7 import render

log = configure_job_logging(snakemake.log[0], "plot_fig7")
weights, losses, bayes = (read_frames(snakemake.input[key]) for key in ("weights", "losses", "bayes"))
fig7 = snakemake.params.fig7
figure = render(weights, losses, bayes, pd.read_parquet(snakemake.input.summary), fig7["cases"], fig7["models"],
                fig7["representative_seed"])
save_figure(figure, snakemake.output[0])
log.info("wrote %s", snakemake.output[0])
