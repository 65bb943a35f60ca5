"""Snakemake script of rule evaluate_bayes: score every baseline of one case on fresh prompts."""

from icdenoise.artifacts import write_parquet
from icdenoise.evaluation import evaluate_baselines
from icdenoise.joblog import configure_job_logging
from icdenoise.runtime import use_threads

case, context_length = snakemake.wildcards.case, int(snakemake.wildcards.L)
log = configure_job_logging(snakemake.log[0], f"evaluate_bayes {case} L={context_length}")
use_threads(snakemake.threads)
task_block, bayes = snakemake.params.task, snakemake.params.bayes

table = evaluate_baselines(case, task_block, context_length, bayes["n_prompts"], bayes["seed"], bayes["chunk_size"])
write_parquet(table, snakemake.output[0], {"case": case, "L": context_length, "task": task_block, "bayes": bayes})
log.info("baselines (MSE/n):\n%s", table.to_string(index=False))
