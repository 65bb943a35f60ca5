"""Rule alltoken_gaussian."""

from icdenoise.warmstart import hand_over

hand_over()

from icdenoise.artifacts import write_job_parquet
from icdenoise.joblog import configure_job_logging
from icdenoise.runtime import use_threads
from icdenoise.studies.alltoken.gaussian import gaussian_table

log = configure_job_logging(snakemake.log[0], "alltoken_gaussian")
use_threads(snakemake.threads)
table = gaussian_table(snakemake.params.block)
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("eigenvalues (particles, ODE):\n%s", table.groupby(["t", "component"])[["eigenvalue", "ode"]].mean().iloc[::20].to_string())
