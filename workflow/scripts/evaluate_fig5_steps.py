"""Snakemake script of rule evaluate_fig5_steps: MSE after k descent steps (Sec. 4)."""

from icdenoise.artifacts import write_parquet
from icdenoise.figures.fig5 import step_count_table
from icdenoise.joblog import configure_job_logging

log = configure_job_logging(snakemake.log[0], "evaluate_fig5_steps")
fig5, task = snakemake.params.fig5, snakemake.params.task
table = step_count_table(task, fig5)
write_parquet(table, snakemake.output[0], {"fig5": fig5, "task": task})
log.info("MSE/n after k steps:\n%s", table.to_string(index=False))
