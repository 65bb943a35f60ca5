"""Rule step_memory_population: three population gradient steps on the 2-layer induction model (slides 20-21), one seed."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.maths.runtime import use_threads
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.studies.memory.induction.population_steps import population_steps

log = start_job(snakemake)
use_threads(snakemake.threads)
table = population_steps(snakemake.params.block, int(snakemake.wildcards.population_seed))
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("probes after each step:\n%s", table.to_string(index=False))
