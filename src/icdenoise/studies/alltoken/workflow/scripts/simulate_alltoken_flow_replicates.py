"""Rule simulate_alltoken_flow_replicates."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.maths.runtime import use_threads
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.studies.alltoken.flow import flow_replicates_table

log = start_job(snakemake)
use_threads(snakemake.threads)
table = flow_replicates_table(snakemake.params.block)
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("the flow at L* from %d seeds, %d β's", table["seed"].nunique(), table["beta"].nunique())
