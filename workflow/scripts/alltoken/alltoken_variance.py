"""Rule alltoken_variance."""

from icdenoise.warmstart import hand_over

hand_over()

from icdenoise.artifacts import write_job_parquet
from icdenoise.joblog import configure_job_logging
from icdenoise.runtime import use_threads
from icdenoise.studies.alltoken.flow import variance_table

log = configure_job_logging(snakemake.log[0], "alltoken_variance")
use_threads(snakemake.threads)
table = variance_table(snakemake.params.block)
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("mean variance by β and depth:\n%s", table.groupby(["depth", "beta"])["variance"].mean().unstack().iloc[::10].to_string())
