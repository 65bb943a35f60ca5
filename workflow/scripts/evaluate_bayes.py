"""Rule evaluate_bayes: score every closed form of one case on fresh prompts."""

from icdenoise.warmstart import hand_over

hand_over()

from icdenoise.artifacts import write_job_parquet
from icdenoise.evaluation import evaluate_closed_forms
from icdenoise.joblog import configure_job_logging

case, context_length = snakemake.wildcards.case, int(snakemake.wildcards.L)
log = configure_job_logging(snakemake.log[0], f"evaluate_bayes {case} L={context_length}")
block, evaluation = snakemake.params.case, snakemake.params.evaluation

table = evaluate_closed_forms(case, block, context_length, evaluation["n_prompts"], evaluation["seed"], evaluation["chunk_size"])
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("closed forms (MSE/n):\n%s", table.to_string(index=False))
