"""Snakemake script of rule compute_fig5: energy grid and descent paths of one circle prompt."""

from icdenoise.artifacts import write_parquet
from icdenoise.figures.fig5 import landscape_tables
from icdenoise.joblog import configure_job_logging

log = configure_job_logging(snakemake.log[0], "compute_fig5")
fig5, task = snakemake.params.fig5, snakemake.params.task
grid, points = landscape_tables(task, fig5)
for frame, path in ((grid, snakemake.output.grid), (points, snakemake.output.points)):
    write_parquet(frame, path, {"fig5": fig5, "task": task})
log.info("energy on a %d×%d grid; %d descent paths of %d steps", fig5["grid_size"], fig5["grid_size"],
         fig5["trajectories"], fig5["iterations"])
