"""Rule simulate_alltoken_particle_flow."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.maths.runtime import use_threads
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.studies.alltoken.flow import particle_flow_table

log = start_job(snakemake)
use_threads(snakemake.threads)
table = particle_flow_table(snakemake.params.block)
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("clusters by β and depth:\n%s", table.groupby(["beta", "depth"])["clusters"].first().unstack(0).iloc[::10].to_string())
