"""Rule scan_energy_landscape: the eq. 16 energy on a grid and the eq. 17 descent paths of one circle context."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.studies.onelayer.descent import landscape_tables

log = start_job(snakemake)
fig5, block = snakemake.params.fig5, snakemake.params.case
grid, points = landscape_tables(block, fig5)
for frame, path in ((grid, snakemake.output.grid), (points, snakemake.output.points)):
    write_job_parquet(frame, path, snakemake)
log.info("energy on a %d×%d grid; %d descent paths of %d steps", fig5["grid_size"], fig5["grid_size"],
         fig5["trajectories"], fig5["iterations"])
