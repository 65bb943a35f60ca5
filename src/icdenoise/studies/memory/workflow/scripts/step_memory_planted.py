"""Rule step_memory_planted: the three gradient steps on the planted-token task over the grid (slide 24), from one seed."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.maths.runtime import use_threads
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.studies.memory.planted import threshold_grid

log = start_job(snakemake)
use_threads(snakemake.threads)
chunk_floats = snakemake.config["execution"]["memory"]["planted"]["chunk_floats"]  # how it runs: not a param
grid = threshold_grid({**snakemake.params.block, "chunk_floats": chunk_floats}, int(snakemake.wildcards.planted_seed))
write_job_parquet(grid, snakemake.output[0], snakemake)
log.info("recall after the three steps:\n%s", grid.to_string(index=False))
