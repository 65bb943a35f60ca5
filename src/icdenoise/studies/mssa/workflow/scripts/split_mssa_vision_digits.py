"""Rule split_mssa_vision_digits: scikit-learn's handwritten digits, scaled to [0, 1], with the config's fixed
stratified train/test split (icdenoise.studies.mssa.vision.split_table)."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.studies.mssa.vision import split_table

log = start_job(snakemake)
block = snakemake.params.block
table = split_table(block["test_fraction"], block["split_seed"])
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("%d images: %s", len(table), table.groupby("split")["label"].value_counts().unstack().to_string())
