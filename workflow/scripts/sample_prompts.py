"""Rule sample_prompts: draw one case's dataset at one context length."""

from icdenoise.warmstart import hand_over

hand_over()

from icdenoise.artifacts import job_params
from icdenoise.cases import make_case
from icdenoise.datasets import write_dataset
from icdenoise.joblog import configure_job_logging

case, context_length = snakemake.wildcards.case, int(snakemake.wildcards.L)
log = configure_job_logging(snakemake.log[0], f"sample_prompts {case} L={context_length}")
block, dataset = snakemake.params.case, snakemake.params.dataset

prompts = make_case(block).sample(dataset["n_prompts"], context_length, dataset["seed"])
write_dataset(prompts, dataset["n_train"], snakemake.output[0], job_params(snakemake), config=snakemake.config)
log.info("wrote %d prompts (L=%d, n=%d, %s corruption) to %s", prompts.n_prompts, context_length, block["n"],
         block["corruption"]["kind"], snakemake.output[0])
