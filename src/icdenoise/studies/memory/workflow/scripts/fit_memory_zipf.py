"""Rule fit_memory_zipf: the Zipf errors in one table and their fitted exponents against the slides' rates."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import read_frames, write_job_parquet
from icdenoise.studies.memory.zipf import fit_table

log = start_job(snakemake)
errors = read_frames(snakemake.input.tables)
fits = fit_table(errors, snakemake.params.block)
write_job_parquet(fits, snakemake.output.fits, snakemake)
write_job_parquet(errors, snakemake.output.errors, snakemake)
log.info("fitted exponents:\n%s", fits.round(3).to_string(index=False))
