"""Rule fit_mssa_regression_baselines: least squares, ridge and Lasso on the test prompts of one task."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.maths.runtime import use_threads
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.studies.mssa.regression import baseline_predictions, error_table, sample_prompts

task = snakemake.wildcards.regression_task
log = start_job(snakemake)
use_threads(snakemake.threads)
block = snakemake.params.block
xs, ys = sample_prompts(task, block["d"], block["nonzeros"], block["test_prompts"], block["examples"], block["test_seed"])
predictions = {
    "least_squares": baseline_predictions("least_squares", xs, ys),
    "ridge": baseline_predictions("ridge", xs, ys, ridge=block["ridge"]),
    "lasso": baseline_predictions("lasso", xs, ys, lasso=block["lasso"]),
}
errors = error_table(predictions, ys, task, block["d"], block["nonzeros"]).assign(task=task, seed=-1, d=block["d"], layers=0, parameters=0,
                                                                            scale=block["scale"])
write_job_parquet(errors, snakemake.output[0], snakemake)
log.info("normalized test error by examples:\n%s",
         errors.pivot(index="examples", columns="model", values="normalized_mse").iloc[::5].to_string())
