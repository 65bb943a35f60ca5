"""Rule summarise_mssa_regression: Fig. 6's error table (models and baselines) and the training curves."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import read_frames, write_job_parquet

log = start_job(snakemake)
errors = read_frames([*snakemake.input.errors, *snakemake.input.baselines], finite=["normalized_mse"])
errors["kind"] = errors["seed"].map(lambda seed: "baseline" if seed < 0 else "trained")
curves = read_frames(snakemake.input.curves, finite=["loss"])
write_job_parquet(errors, snakemake.output.errors, snakemake)
write_job_parquet(curves, snakemake.output.curves, snakemake)
log.info("normalized test error at the most examples:\n%s",
         errors[errors["examples"] == errors["examples"].max()].groupby(["task", "model"])["normalized_mse"].mean().to_string())
