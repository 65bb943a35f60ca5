"""Rule evaluate_trained: score every model trained on one case at one L, per seed, on fresh prompts."""

from icdenoise.warmstart import hand_over

hand_over()

from icdenoise.artifacts import write_job_parquet
from icdenoise.joblog import configure_job_logging
from icdenoise.models import load_trained
from icdenoise.runtime import use_threads
from icdenoise.scoring import evaluate_denoisers

case, context_length = snakemake.wildcards.case, int(snakemake.wildcards.L)
log = configure_job_logging(snakemake.log[0], f"evaluate_trained {case} L={context_length}")
use_threads(snakemake.threads)
block, evaluation = snakemake.params.case, snakemake.params.evaluation

ensembles = {model: load_trained(path) for model, path in zip(snakemake.params.models, snakemake.input.weights)}
table = evaluate_denoisers(case, block, context_length, ensembles, evaluation["n_prompts"], evaluation["seed"], evaluation["chunk_size"])
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("trained models (MSE/n per seed):\n%s", table.to_string(index=False))
