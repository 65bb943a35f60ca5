"""Rule mssa_plot: one figure of the mssa study, from its tables (keyed by file name)."""

from icdenoise.warmstart import hand_over

hand_over()

from pathlib import Path

import pandas as pd

from icdenoise.joblog import configure_job_logging
from icdenoise.plotting import save_figure
from icdenoise.studies.mssa.plots import FIGURES

figure = snakemake.wildcards.figure
log = configure_job_logging(snakemake.log[0], f"mssa_plot {figure}")
tables = {Path(path).stem: pd.read_parquet(path) for path in snakemake.input.tables}
save_figure(FIGURES[figure](tables), snakemake.output[0])
log.info("wrote %s", snakemake.output[0])
