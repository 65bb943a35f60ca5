"""Rule evaluate_example_prompts: one n = 3 test prompt per case with the Bayes and trained estimates."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

import pandas as pd

from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.records.datasets import read_dataset
from icdenoise.studies.onelayer.example_prompts import drawn_seed, points_table

log = start_job(snakemake)
fig1, cases, architectures = snakemake.params.fig1, snakemake.params.cases, snakemake.params.architectures
frames = []
inputs = zip(snakemake.params.order, snakemake.input.datasets, snakemake.input.weights, snakemake.input.losses)
for case, dataset, weights, losses in inputs:
    model = fig1["cases"][case]
    seed = drawn_seed(pd.read_parquet(losses), fig1["representative_seed"])
    log.info("%s: drawing %s of seed %d", case, model, seed)
    prompts, is_train = read_dataset(dataset)
    frames.append(points_table(case, cases[case], prompts, is_train, pd.read_parquet(weights), model, architectures[model],
                               fig1["test_prompt"], seed))
table = pd.concat(frames, ignore_index=True)
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("estimates:\n%s", table[table["kind"].isin(["target", "query", "bayes", "model"])].to_string(index=False))
