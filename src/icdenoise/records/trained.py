"""Trained ensembles read back from the weights tables the shared training stage writes, and the divergence
record a sweep point's diverged training writes in their place."""

from __future__ import annotations

import os

import pandas as pd
import pyarrow.parquet as pq

from icdenoise.maths.denoisers import TrainedEnsemble
from icdenoise.maths.models import model_class
from icdenoise.records.artifacts import read_metadata

DIVERGED = "status"  # the column that tells a divergence record from a weights table, which has none


def divergence(path: str | os.PathLike) -> pd.DataFrame | None:
    """The divergence record at `path`, where rule train_ensemble wrote one in place of the weights (a sweep
    point's training that diverged: icdenoise.maths.training.Divergence.table, with case, L and model), or
    None for a weights table."""
    if DIVERGED not in pq.read_schema(path).names:
        return None
    return pq.read_table(path).to_pandas()


def read_trainings(paths) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(weights, divergences): the weights tables among `paths` stacked, and the divergence records stacked
    (each an empty frame where there is none)."""
    weights, diverged = [], []
    for path in paths:
        record = divergence(path)
        if record is None:
            weights.append(pd.read_parquet(path))
        else:
            diverged.append(record)
    return tuple(pd.concat(frames, ignore_index=True) if frames else pd.DataFrame() for frames in (weights, diverged))


def load_trained(path, stage: str = "final") -> TrainedEnsemble:
    """The trained ensemble of a weights Parquet written by rule train_ensemble, as a denoiser: the
    model's architecture and options come from the file's provenance (the rule's ``params.model``)."""
    block = read_metadata(path)["params"]["params"]["model"]
    options = {key: value for key, value in block.items() if key != "architecture"}
    seeds, model = model_class(block["architecture"]).from_frame(pq.read_table(path).to_pandas(), stage, **options)
    return TrainedEnsemble(model, tuple(seeds))
