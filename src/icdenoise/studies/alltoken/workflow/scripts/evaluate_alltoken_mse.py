"""Rule evaluate_alltoken_mse: one N of Fig. 4(a)."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.maths.runtime import use_threads
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.studies.alltoken.mse import mse_by_depth

tokens = int(snakemake.wildcards.tokens)
log = start_job(snakemake)
use_threads(snakemake.threads)
table = mse_by_depth(snakemake.params.case, snakemake.params.block, tokens, snakemake.params.contexts)
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("MSE/σ² at the bars' depth, mean over contexts:\n%s",
         table[table["depth"] == snakemake.params.block["depth"]].groupby("estimator")["mse_over_sigma2"].mean().to_string())
