"""Rule memory_curves: the Hebbian memory's recall accuracy on a grid of N for one map."""

from icdenoise.warmstart import hand_over

hand_over()

from icdenoise.artifacts import write_job_parquet
from icdenoise.joblog import configure_job_logging
from icdenoise.runtime import use_threads
from icdenoise.studies.memory.capacity import curve_table

map_name = snakemake.wildcards.memory_map
log = configure_job_logging(snakemake.log[0], f"memory_curves {map_name}")
use_threads(snakemake.threads)
table = curve_table(snakemake.params.block, map_name)
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("accuracy (mean over seeds):\n%s", table.groupby(["d", "stored"])["accuracy"].mean().round(3).to_string())
