"""Rule summarise_sweep: a sweep's tidy table from the shared stages' tables of its points
(icdenoise.experiments.sweep_table)."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.experiments.sweep_table import sweep_table
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import read_frames, write_job_parquet

log = start_job(snakemake)
table = sweep_table(
    snakemake.wildcards.sweep,
    snakemake.params.points,
    read_frames(snakemake.input.bayes, finite=["mse"]),
    read_frames(snakemake.input.scores, finite=["mse"]),
    read_frames(snakemake.input.weights),
)
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("sweep %s: %d rows over %d points", snakemake.wildcards.sweep, len(table), table["case"].nunique())
