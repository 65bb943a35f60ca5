"""Rule memory_variance: the simulated cross-talk statistics against the slides' and the exact variance."""

from icdenoise.warmstart import hand_over

hand_over()

from icdenoise.artifacts import write_job_parquet
from icdenoise.joblog import configure_job_logging
from icdenoise.runtime import use_threads
from icdenoise.studies.memory.crosstalk import variance_table

log = configure_job_logging(snakemake.log[0], "memory_variance")
use_threads(snakemake.threads)
table = variance_table(snakemake.params.block, snakemake.params.few_outputs)
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("simulated variance over the slides' and over the exact expression:\n%s",
         table[["map", "d", "stored", "output", "over_slides", "over_exact"]].round(3).to_string(index=False))
