"""Rule simulate_memory_variance: the simulated cross-talk statistics against the slides' and the exact variance."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.maths.runtime import use_threads
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.studies.memory.crosstalk import variance_table

log = start_job(snakemake)
use_threads(snakemake.threads)
table = variance_table(snakemake.params.block, snakemake.params.few_outputs)
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("simulated variance over the slides' and over the exact expression:\n%s",
         table[["map", "d", "stored", "output", "over_slides", "over_exact"]].round(3).to_string(index=False))
