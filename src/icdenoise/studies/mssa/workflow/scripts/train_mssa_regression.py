"""Rules train_mssa_regression and train_mssa_regression_grid_point: one in-context model, one task, one seed; its
training curve and test errors, each with the device it trained on in its provenance (`device`, not a column: how a
job runs is not a result). The job saves its state now and then and continues from it when run again
(icdenoise.pipeline.checkpoints). A grid point (params `on_divergence: record`) whose training diverges writes a
record of it (`divergence_record`) in place of its errors and no curve rows, so that the grid's table is built."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.maths.runtime import resolve_device, use_threads
from icdenoise.maths.training import TrainingDiverged
from icdenoise.pipeline.checkpoints import job_checkpoint
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.studies.mssa.learning_rates import divergence_record, empty_curve
from icdenoise.studies.mssa.regression import error_table, sample_prompts
from icdenoise.studies.mssa.transformers import build_model, device_description, parameter_count, predict, train_model

task, architecture, seed = snakemake.wildcards.regression_task, snakemake.wildcards.architecture, int(snakemake.wildcards.training_seed)
log = start_job(snakemake)
use_threads(snakemake.threads)
block = snakemake.params.block
device = resolve_device(snakemake.config["execution"]["mssa"]["regression"]["device"])  # how it runs: not a param
model = build_model(architecture, block["d"], block["width"], block["heads"], snakemake.params.layers, block["examples"], seed)
log.info("%s, %d layers, width %d, %d heads: %d parameters, on %s", architecture, snakemake.params.layers, block["width"],
         block["heads"], parameter_count(model), device)
trained_on = device_description(device)
diverged = None
try:
    with job_checkpoint(snakemake, log, f"{architecture} on {task}, seed {seed}") as checkpoint:
        curve = train_model(model, task, block["d"], block["nonzeros"], block["examples"], block["steps"], block["batch"],
                            block["learning_rate"], block["clip"], seed, block["record_every"], device=str(device), log=log,
                            checkpoint=checkpoint)
except TrainingDiverged as error:
    if snakemake.params.get("on_divergence") != "record":
        raise
    diverged = error
if diverged is not None:
    log.warning("%s; recorded as a diverged grid point", diverged)
    write_job_parquet(divergence_record(diverged, task, architecture, seed), snakemake.output.errors, snakemake, device=trained_on)
    write_job_parquet(empty_curve(task, architecture, seed), snakemake.output.curve, snakemake, device=trained_on)
else:
    xs, ys = sample_prompts(task, block["d"], block["nonzeros"], block["test_prompts"], block["examples"], block["test_seed"])
    errors = error_table({architecture: predict(model.cpu(), xs, ys)}, ys, task, block["d"], block["nonzeros"])
    errors = errors.assign(task=task, seed=seed, d=block["d"], layers=snakemake.params.layers, parameters=parameter_count(model),
                           scale=block["scale"])
    write_job_parquet(curve.assign(task=task, model=architecture, seed=seed), snakemake.output.curve, snakemake, device=trained_on)
    write_job_parquet(errors, snakemake.output.errors, snakemake, device=trained_on)
    log.info("normalized test error by examples:\n%s", errors[["examples", "normalized_mse"]].iloc[::5].to_string(index=False))
