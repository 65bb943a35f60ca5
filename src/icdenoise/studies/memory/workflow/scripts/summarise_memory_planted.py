"""Rule summarise_memory_planted: every planted-token grid in one table, and the d at which recall crosses the threshold."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import read_frames, write_job_parquet
from icdenoise.studies.memory.planted_boundary import success_boundary

log = start_job(snakemake)
grid = read_frames(snakemake.input.runs)
boundary = success_boundary(grid, snakemake.params.block["success_threshold"])
write_job_parquet(grid, snakemake.output.grid, snakemake)
write_job_parquet(boundary, snakemake.output.boundary, snakemake)
log.info("success boundary:\n%s", boundary.to_string(index=False))
