"""Rule measure_memory_curves: the Hebbian memory's recall accuracy on a grid of N for one map."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.maths.runtime import use_threads
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.studies.memory.capacity import curve_table

map_name = snakemake.wildcards.memory_map
log = start_job(snakemake)
use_threads(snakemake.threads)
table = curve_table(snakemake.params.block, map_name)
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("accuracy (mean over seeds):\n%s", table.groupby(["d", "stored"])["accuracy"].mean().round(3).to_string())
