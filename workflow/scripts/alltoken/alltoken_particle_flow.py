"""Rule alltoken_particle_flow."""

from icdenoise.warmstart import hand_over

hand_over()

from icdenoise.artifacts import write_job_parquet
from icdenoise.joblog import configure_job_logging
from icdenoise.runtime import use_threads
from icdenoise.studies.alltoken.flow import particle_flow_table

log = configure_job_logging(snakemake.log[0], "alltoken_particle_flow")
use_threads(snakemake.threads)
table = particle_flow_table(snakemake.params.block)
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("clusters by β and depth:\n%s", table.groupby(["beta", "depth"])["clusters"].first().unstack(0).iloc[::10].to_string())
