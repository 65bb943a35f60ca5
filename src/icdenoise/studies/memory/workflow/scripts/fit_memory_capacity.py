"""Rule fit_memory_capacity: every capacity and accuracy curve in one table each, and the fitted exponents."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

import pandas as pd

from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import read_frames, write_job_parquet
from icdenoise.studies.memory.capacity_fits import fit_table

log = start_job(snakemake)
capacity = read_frames(snakemake.input.capacity)
curves = read_frames(snakemake.input.curves)
width = pd.concat([read_frames([snakemake.input.low_rank]), read_frames(snakemake.input.mlp)], ignore_index=True)
fits = fit_table(capacity, width)
for table, path in ((fits, snakemake.output.fits), (capacity, snakemake.output.capacity), (curves, snakemake.output.curves),
                    (width, snakemake.output.width)):
    write_job_parquet(table, path, snakemake)
log.info("fitted exponents:\n%s", fits[["map", "memory", "against", "slope", "ci_low", "ci_high", "slides_slope"]].round(3).to_string(index=False))
