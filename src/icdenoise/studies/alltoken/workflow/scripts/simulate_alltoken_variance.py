"""Rule simulate_alltoken_variance."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.maths.runtime import use_threads
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.studies.alltoken.flow import variance_table

log = start_job(snakemake)
use_threads(snakemake.threads)
table = variance_table(snakemake.params.block)
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("mean variance by β and depth:\n%s", table.groupby(["depth", "beta"])["variance"].mean().unstack().iloc[::10].to_string())
