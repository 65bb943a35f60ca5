"""Rule evaluate_descent_steps: MSE after k steps of eq. 17 (Sec. 4)."""

from icdenoise.warmstart import hand_over

hand_over()

from icdenoise.artifacts import write_job_parquet
from icdenoise.joblog import configure_job_logging
from icdenoise.studies.onelayer.descent import step_count_table

log = configure_job_logging(snakemake.log[0], "evaluate_descent_steps")
fig5, block = snakemake.params.fig5, snakemake.params.case
table = step_count_table(block, fig5)
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("MSE/n after k steps:\n%s", table.to_string(index=False))
