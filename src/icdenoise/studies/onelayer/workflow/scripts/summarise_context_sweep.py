"""Rule summarise_context_sweep: the Figure 4(a) context-length sweep reduced to three tables."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import read_frames, write_job_parquet
from icdenoise.records.datasets import read_dataset
from icdenoise.studies.onelayer.context_sweep import oracle_on_test_prompts, power_law_fit, sweep_table

log = start_job(snakemake)
block = snakemake.params.case
test_oracle = oracle_on_test_prompts(block, (read_dataset(path) for path in snakemake.input.datasets))
weights, losses = read_frames(snakemake.input.weights, finite=["value"]), read_frames(snakemake.input.losses, finite=["mse"])
table = sweep_table(weights, losses, test_oracle, block)
baselines = read_frames(snakemake.input.bayes, finite=["mse", "sem"])
fit = power_law_fit(table)
for frame, path in ((table, snakemake.output.sweep), (baselines, snakemake.output.baselines), (fit, snakemake.output.fit)):
    write_job_parquet(frame, path, snakemake)
log.info("per L (mean over seeds):\n%s", table.groupby("L")[["gamma", "best_test_mse", "oracle_test_mse", "excess_mse"]].mean().to_string())
log.info("power law of the excess: %s", fit.to_dict("records")[0])
