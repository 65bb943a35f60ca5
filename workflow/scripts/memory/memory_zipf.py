"""Rule memory_zipf: the exact test error of the finite memories under Zipf(α) tokens, for one α."""

from icdenoise.warmstart import hand_over

hand_over()

from icdenoise.artifacts import write_job_parquet
from icdenoise.joblog import configure_job_logging
from icdenoise.runtime import use_threads
from icdenoise.studies.memory.zipf import scaling_table

block = snakemake.params.block
alpha = next(alpha for alpha in block["alphas"] if f"{alpha:g}" == snakemake.wildcards.alpha)
log = configure_job_logging(snakemake.log[0], f"memory_zipf alpha={alpha:g}")
use_threads(snakemake.threads)
table = scaling_table(block, alpha)
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("%d rows; mean error per estimator and sweep:\n%s", len(table), table.groupby(["sweep", "estimator"])["error"].mean().to_string())
