"""Rule summarise_mssa_lr_grid: the learning-rate grid's table, one row per point (icdenoise.studies.mssa.learning_rates)."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

import pandas as pd

from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.studies.mssa.learning_rates import STATUS_DIVERGED, grid_table

log = start_job(snakemake)
table = grid_table(snakemake.params.points, [pd.read_parquet(path) for path in snakemake.input.errors])
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("%d points, %d diverged; normalized test MSE at the most examples:\n%s", len(table),
         (table["status"] == STATUS_DIVERGED).sum(),
         table.groupby(["task", "model", "learning_rate", "clip"])["normalized_mse"].mean().to_string())
