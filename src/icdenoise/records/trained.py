"""Trained ensembles read back from the weights tables the shared training stage writes."""

from __future__ import annotations

import pyarrow.parquet as pq

from icdenoise.maths.denoisers import TrainedEnsemble
from icdenoise.maths.models import model_class
from icdenoise.records.artifacts import read_metadata


def load_trained(path, stage: str = "final") -> TrainedEnsemble:
    """The trained ensemble of a weights Parquet written by rule train_ensemble, as a denoiser: the
    model's architecture and options come from the file's provenance (the rule's ``params.model``)."""
    block = read_metadata(path)["params"]["params"]["model"]
    options = {key: value for key, value in block.items() if key != "architecture"}
    seeds, model = model_class(block["architecture"]).from_frame(pq.read_table(path).to_pandas(), stage, **options)
    return TrainedEnsemble(model, tuple(seeds))
