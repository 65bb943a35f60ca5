"""Rule evaluate_scaled_query_grid: MSE/n of every scaled query on the case's fresh prompts, with its closed form."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from scaled_query_study.shrinkage import scale_table

from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet

log = start_job(snakemake)
params = snakemake.params
table = scale_table(params.case_name, params.case, params.case["L"], params.scales, params.evaluation,
                    snakemake.config["execution"]["evaluation"]["chunk_size"])
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("MSE/n by scale:\n%s", table[["scale", "mse", "expected"]].to_string(index=False))
