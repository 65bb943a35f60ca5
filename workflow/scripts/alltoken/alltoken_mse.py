"""Rule alltoken_mse: one N of Fig. 4(a)."""

from icdenoise.warmstart import hand_over

hand_over()

from icdenoise.artifacts import write_job_parquet
from icdenoise.joblog import configure_job_logging
from icdenoise.runtime import use_threads
from icdenoise.studies.alltoken.mse import mse_by_depth

tokens = int(snakemake.wildcards.tokens)
log = configure_job_logging(snakemake.log[0], f"alltoken_mse N={tokens}")
use_threads(snakemake.threads)
table = mse_by_depth(snakemake.params.case, snakemake.params.block, tokens, snakemake.params.contexts)
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("MSE/σ² at the bars' depth, mean over contexts:\n%s",
         table[table["depth"] == snakemake.params.block["depth"]].groupby("estimator")["mse_over_sigma2"].mean().to_string())
