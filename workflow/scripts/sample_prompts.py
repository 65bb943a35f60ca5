"""Rule sample_prompts: one case's fixed dataset at one context length, as Parquet."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.maths.cases import make_case
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import job_params
from icdenoise.records.datasets import write_dataset

log = start_job(snakemake)
context_length = int(snakemake.wildcards.L)
block, dataset = snakemake.params.case, snakemake.params.dataset
prompts = make_case(block).sample(dataset["n_prompts"], context_length, dataset["seed"])
write_dataset(prompts, dataset["n_train"], snakemake.output[0], job_params(snakemake), config=snakemake.config)
log.info("wrote %d prompts (L=%d, n=%d, %s corruption) to %s", prompts.n_prompts, context_length, block["n"],
         block["corruption"]["kind"], snakemake.output[0])
