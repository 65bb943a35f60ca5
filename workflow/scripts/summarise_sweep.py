"""Rule summarise_sweep: a sweep's tidy table from the shared stages' tables of its points
(icdenoise.experiments.sweep_table)."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.experiments.sweep_table import sweep_table
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import read_frames, write_job_parquet
from icdenoise.records.trained import read_trainings

log = start_job(snakemake)
weights, divergences = read_trainings(snakemake.input.weights)  # a diverged training's record in place of its weights
table = sweep_table(
    snakemake.wildcards.sweep,
    snakemake.params.points,
    read_frames(snakemake.input.bayes, finite=["mse"]),
    read_frames(snakemake.input.scores, finite=["mse"]),
    weights,
    divergences,
)
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("sweep %s: %d rows over %d points, %d rows diverged in training", snakemake.wildcards.sweep, len(table),
         table["case"].nunique(), (table["status"] != "trained").sum())
