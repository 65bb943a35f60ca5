"""Rule compute_starter: MSE/n of the noisy query on each case's fresh prompts, against σ_z²."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from starter.noisy_query import noisy_query_table

from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet

log = start_job(snakemake)
params = snakemake.params
table = noisy_query_table(params.cases, params.prompts, params.seed, snakemake.config["execution"]["evaluation"]["chunk_size"])
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("MSE/n over σ_z²:\n%s", table[["case", "mse", "sigma_z_sq", "ratio"]].to_string(index=False))
