"""Rule evaluate_trained: every model trained on a case at one L, scored per seed on the fresh prompts
of evaluate_bayes. A model whose training diverged at a sweep point (its divergence record in place of its
weights: icdenoise.records.trained.divergence) has no trained model and no row."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

import pandas as pd

from icdenoise.maths.runtime import use_threads
from icdenoise.maths.scoring import evaluate_denoisers
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.records.trained import divergence, load_trained

log = start_job(snakemake)
use_threads(snakemake.threads)
block, evaluation = snakemake.params.case, snakemake.params.evaluation
trainings = dict(zip(snakemake.params.models, snakemake.input.weights))
diverged = {model: record for model, path in trainings.items() if (record := divergence(path)) is not None}
for model, record in diverged.items():
    log.info("model %s diverged in training at step %d: not scored", model, record["step"].iloc[0])
ensembles = {model: load_trained(path) for model, path in trainings.items() if model not in diverged}
if ensembles:
    table = evaluate_denoisers(snakemake.wildcards.case, block, int(snakemake.wildcards.L), ensembles, evaluation["n_prompts"],
                               evaluation["seed"], snakemake.config["execution"]["evaluation"]["chunk_size"])
else:  # every model diverged: the table's columns, no row
    table = pd.DataFrame({"case": pd.Series(dtype=str), "estimator": pd.Series(dtype=str), "seed": pd.Series(dtype="int64"),
                          "mse": pd.Series(dtype=float), "sem": pd.Series(dtype=float), "n_prompts": pd.Series(dtype="int64"),
                          "L": pd.Series(dtype="int64")})
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("trained models (MSE/n per seed):\n%s", table.to_string(index=False))
