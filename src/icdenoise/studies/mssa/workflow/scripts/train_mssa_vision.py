"""Rule train_mssa_vision: one digit classifier (AoT-MSSA-V, AoT-MHSA-V or ViT) from one seed; its training curve,
its test accuracy and parameter count, and the class token's attention over the patches of Fig. 7's test images in
its penultimate layer. The job saves its state now and then and continues from it when run again
(icdenoise.pipeline.checkpoints)."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

import pandas as pd

from icdenoise.maths.runtime import use_threads
from icdenoise.pipeline.checkpoints import job_checkpoint
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.studies.mssa.transformers import parameter_count
from icdenoise.studies.mssa.vision import (
    MODEL_NAMES,
    accuracy,
    attention_image_rows,
    attention_table,
    build_classifier,
    digit_tensors,
    images_of,
    penultimate,
    train_classifier,
)

architecture, seed = snakemake.wildcards.vision_model, int(snakemake.wildcards.training_seed)
log = start_job(snakemake)
use_threads(snakemake.threads)
block, layers = snakemake.params.block, snakemake.params.layers
split = pd.read_parquet(snakemake.input.split)
tensors = {part: digit_tensors(split[split["split"] == part], block["patch"]) for part in ("train", "test")}
side = images_of(split.head(1)).shape[-1]
model = build_classifier(architecture, block["patch"], side, block["width"], block["heads"], layers, seed)
parameters = parameter_count(model)
log.info("%s, %d layers, width %d, %d heads: %d parameters; %d training and %d test images", MODEL_NAMES[architecture], layers,
         block["width"], block["heads"], parameters, len(tensors["train"][1]), len(tensors["test"][1]))
with job_checkpoint(snakemake, log, f"{architecture}, seed {seed}") as checkpoint:
    curve = train_classifier(model, tensors["train"], tensors["test"], block["steps"], block["batch"], block["learning_rate"], seed,
                             block["record_every"], log=log, checkpoint=checkpoint)
keys = dict(model=architecture, seed=seed, layers=layers, width=block["width"], heads=block["heads"], scale=block["scale"])
test_accuracy = accuracy(model, *tensors["test"])
shown = attention_image_rows(split, block["attention_digits"])
maps = attention_table(model, digit_tensors(shown, block["patch"])[0], shown, block["patch"], penultimate(layers))
write_job_parquet(curve.assign(**keys), snakemake.output.curve, snakemake)
write_job_parquet(pd.DataFrame([{**keys, "parameters": parameters, "test_accuracy": test_accuracy,
                                 "test_images": len(tensors["test"][1]), "train_images": len(tensors["train"][1])}]),
                  snakemake.output.accuracy, snakemake)
write_job_parquet(maps.assign(**keys), snakemake.output.attention, snakemake)
log.info("%s, seed %d: test accuracy %.4f, %d parameters", MODEL_NAMES[architecture], seed, test_accuracy, parameters)
