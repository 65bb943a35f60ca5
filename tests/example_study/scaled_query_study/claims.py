"""The example study's one claim: the best scale on the grid is c* = m / (m + n σ_z²) (shrinkage.py)."""

from __future__ import annotations

import numpy as np

from icdenoise.records.claims import Claim, Frames


def best_scale_over_optimal(frames: Frames, spec: dict) -> np.ndarray:
    table = frames["scales"]
    best = table.loc[table["mse"].idxmin()]
    return np.array([best["scale"] / best["optimal_scale"]])


CLAIMS = {
    "best_scale_is_optimal": Claim("shrinkage.py, c*", "the grid's best scale is c* = m / (m + n σ_z²)", best_scale_over_optimal),
}
