"""Snakemake script of rule sample_prompts: draw one case's dataset and write it to Parquet."""

from icdenoise.datasets import write_dataset
from icdenoise.joblog import configure_job_logging
from icdenoise.tasks import make_task

case = snakemake.wildcards.case
log = configure_job_logging(snakemake.log[0], f"sample_prompts {case}")
task_block, dataset = snakemake.params.task, snakemake.params.dataset

prompts = make_task(case, task_block).sample(dataset["n_prompts"], task_block["L"], dataset["seed"])
write_dataset(prompts, dataset["n_train"], snakemake.output[0], {"case": case, "task": task_block, "dataset": dataset})
log.info("wrote %d prompts (L=%d, n=%d) to %s", prompts.n_prompts, task_block["L"], task_block["n"], snakemake.output[0])
