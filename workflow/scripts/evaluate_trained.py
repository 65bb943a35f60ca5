"""Rule evaluate_trained: every model trained on a case at one L, scored per seed on the fresh prompts
of evaluate_bayes."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.maths.runtime import use_threads
from icdenoise.maths.scoring import evaluate_denoisers
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.records.trained import load_trained

log = start_job(snakemake)
use_threads(snakemake.threads)
block, evaluation = snakemake.params.case, snakemake.params.evaluation
ensembles = {model: load_trained(path) for model, path in zip(snakemake.params.models, snakemake.input.weights)}
table = evaluate_denoisers(snakemake.wildcards.case, block, int(snakemake.wildcards.L), ensembles, evaluation["n_prompts"],
                           evaluation["seed"], snakemake.config["execution"]["evaluation"]["chunk_size"])
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("trained models (MSE/n per seed):\n%s", table.to_string(index=False))
