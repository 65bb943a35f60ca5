"""Rule summarise_memory_factual: every factual-recall grid in one table, and where recall crosses the threshold."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import read_frames, write_job_parquet
from icdenoise.studies.memory.factual import needed_sizes

log = start_job(snakemake)
grid = read_frames(snakemake.input.runs)
needed = needed_sizes(grid, snakemake.params.block["recall_threshold"])
write_job_parquet(grid, snakemake.output.grid, snakemake)
write_job_parquet(needed, snakemake.output.needed, snakemake)
log.info("where recall crosses the threshold:\n%s", needed.to_string(index=False))
