"""Rule evaluate_alltoken_learned_depth."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

import pandas as pd

from icdenoise.maths.runtime import use_threads
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.records.trained import load_trained
from icdenoise.studies.alltoken.learned import learned_mse, learned_parameters

log = start_job(snakemake)
use_threads(snakemake.threads)
case, mse = snakemake.params.case, snakemake.params.mse
parameters = learned_parameters(pd.read_parquet(snakemake.input.weights), case["corruption"]["sigma_z_sq"], mse["beta"])
table = learned_mse(load_trained(snakemake.input.weights), case, mse, snakemake.params.block)
write_job_parquet(parameters, snakemake.output.parameters, snakemake)
write_job_parquet(table, snakemake.output.table, snakemake)
log.info("learned parameters (mean over seeds):\n%s", parameters.groupby("layer")[["beta", "eta", "tau", "beta_c"]].mean().to_string())
log.info("MSE/σ² by N:\n%s", table.groupby(["N", "estimator"])["mse_over_sigma2"].mean().unstack().to_string())
