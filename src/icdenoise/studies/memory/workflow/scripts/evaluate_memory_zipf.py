"""Rule evaluate_memory_zipf: the exact test error of the finite memories under Zipf(α) tokens, for one α."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.maths.runtime import use_threads
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.studies.memory.zipf import scaling_table

block = snakemake.params.block
alpha = next(alpha for alpha in block["alphas"] if f"{alpha:g}" == snakemake.wildcards.alpha)
log = start_job(snakemake)
use_threads(snakemake.threads)
table = scaling_table(block, alpha)
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("%d rows; mean error per estimator and sweep:\n%s", len(table), table.groupby(["sweep", "estimator"])["error"].mean().to_string())
