"""Rule fit_memory_capacity_confirmatory: the confirmatory twins' capacities in one table and their fitted exponents against d."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import read_frames, write_job_parquet
from icdenoise.studies.memory.capacity_fits import fit_table

log = start_job(snakemake)
capacity = read_frames(snakemake.input.capacity)
fits = fit_table(capacity)
for table, path in ((fits, snakemake.output.fits), (capacity, snakemake.output.capacity)):
    write_job_parquet(table, path, snakemake)
log.info("fitted exponents on the fresh seeds:\n%s", fits[["map", "memory", "slope", "ci_low", "ci_high", "slides_slope"]].round(3).to_string(index=False))
