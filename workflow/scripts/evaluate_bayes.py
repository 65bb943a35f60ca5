"""Rule evaluate_bayes: every closed form that applies to a case, on fresh prompts (MSE/n)."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.maths.evaluation import evaluate_closed_forms
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet

log = start_job(snakemake)
block, evaluation = snakemake.params.case, snakemake.params.evaluation
table = evaluate_closed_forms(snakemake.wildcards.case, block, int(snakemake.wildcards.L), evaluation["n_prompts"],
                              evaluation["seed"], snakemake.config["execution"]["evaluation"]["chunk_size"])
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("closed forms (MSE/n):\n%s", table.to_string(index=False))
