"""Rule simulate_alltoken_gaussian."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.maths.runtime import use_threads
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.studies.alltoken.gaussian import gaussian_table, trend_table

log = start_job(snakemake)
use_threads(snakemake.threads)
table = gaussian_table(snakemake.params.block)
trend = trend_table(snakemake.params.block)
write_job_parquet(table, snakemake.output.table, snakemake)
write_job_parquet(trend, snakemake.output.trend, snakemake)
log.info("largest |λ/λ₀ − 1| at T_β by β (mean over seeds):\n%s", trend.groupby("beta")["largest_error"].mean().to_string())
log.info("eigenvalues (particles, ODE):\n%s", table.groupby(["t", "component"])[["eigenvalue", "ode"]].mean().iloc[::20].to_string())
