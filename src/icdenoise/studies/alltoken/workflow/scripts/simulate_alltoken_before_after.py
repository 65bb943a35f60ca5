"""Rule simulate_alltoken_before_after."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.maths.runtime import use_threads
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.studies.alltoken.before_after import before_after_tables

log = start_job(snakemake)
use_threads(snakemake.threads)
estimates, tokens, energy = before_after_tables(snakemake.params.block)
for key, table in (("estimates", estimates), ("tokens", tokens), ("energy", energy)):
    write_job_parquet(table, snakemake.output[key], snakemake)
log.info("x̂* over %d draws (mean, std) by depth, the query among the particles (estimate) and apart from them:\n%s",
         estimates["draw"].nunique(), estimates.groupby("depth")[["estimate", "estimate_query_apart"]].agg(["mean", "std"]).to_string())
