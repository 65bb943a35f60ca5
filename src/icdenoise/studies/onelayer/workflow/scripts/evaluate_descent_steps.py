"""Rule evaluate_descent_steps: MSE after k steps of eq. 17 (Sec. 4)."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.studies.onelayer.descent import step_count_table

log = start_job(snakemake)
fig5, block = snakemake.params.fig5, snakemake.params.case
table = step_count_table(block, fig5)
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("MSE/n after k steps:\n%s", table.to_string(index=False))
