"""Rule summarise_mssa_language: Fig. 5's tables (scaled), every model's and seed's curves and final losses, and one
row per model of its sizes and parameter count beside Table 4's."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import read_frames, write_job_parquet
from icdenoise.studies.mssa.language import parameter_table

log = start_job(snakemake)
curves = read_frames(snakemake.input.curves, finite=["train_loss", "val_loss"])
final = read_frames(snakemake.input.final, finite=["val_loss"])
parameters = parameter_table(final)
write_job_parquet(curves, snakemake.output.curves, snakemake)
write_job_parquet(final, snakemake.output.final, snakemake)
write_job_parquet(parameters, snakemake.output.parameters, snakemake)
log.info("parameters:\n%s\nfinal validation loss by model and seed:\n%s", parameters.to_string(index=False),
         final.pivot_table(index="seed", columns="model", values="val_loss").to_string())
