"""Snakemake script of rule sample_prompts: draw one case's dataset at one context length."""

from icdenoise.cases import sample_case
from icdenoise.datasets import write_dataset
from icdenoise.joblog import configure_job_logging

case, context_length = snakemake.wildcards.case, int(snakemake.wildcards.L)
log = configure_job_logging(snakemake.log[0], f"sample_prompts {case} L={context_length}")
task_block, dataset = snakemake.params.task, snakemake.params.dataset

prompts = sample_case(task_block, dataset["n_prompts"], context_length, dataset["seed"])
params = {"case": case, "L": context_length, "task": task_block, "dataset": dataset}
write_dataset(prompts, dataset["n_train"], snakemake.output[0], params)
log.info("wrote %d prompts (L=%d, n=%d) to %s", prompts.n_prompts, context_length, task_block["n"], snakemake.output[0])
