"""The learned scales of an attention model, read from the weights tables the shared training stage
writes (columns case, L, model, seed, stage, matrix, row, col, value)."""

from __future__ import annotations

import pandas as pd


def diagonal_means(weights: pd.DataFrame) -> pd.DataFrame:
    """α = mean diag W_PV and β = mean diag W_KQ (Sec. 3) per (case, L, model, seed, stage): the scalars of
    eqs. 11 and 12's weights at the structure W = α I, W_KQ = β I they learn. Models without these matrices
    get no column."""
    diagonal = weights[weights["row"] == weights["col"]]
    keys = [key for key in ("case", "L", "model", "seed", "stage") if key in weights]
    means = diagonal.groupby(keys + ["matrix"])["value"].mean().unstack("matrix")
    return means.rename(columns={"W_PV": "alpha", "W_KQ": "beta"}).reset_index()
