"""icdenoise.studies.memory.tools.factual_crossings: the attention-only crossings per pair and seed, and the bootstrap over seeds."""

import math

import numpy as np
import pandas as pd

from icdenoise.studies.memory.tools.factual_crossings import attention_only_crossings, bootstrap_crossings


def recall_curve(model: str, axis: str, xs, recalls, **keys) -> pd.DataFrame:
    return pd.DataFrame({"model": model, axis: xs, "recall": recalls, **keys})


def test_attention_only_crossings_per_pair_from_the_mean_and_from_each_seed():
    grid = pd.concat([
        recall_curve("attention_only", "d", [4, 8, 16], [0.5, 0.9, 1.0], relations=2, answers=6, seed=0),
        recall_curve("attention_only", "d", [4, 8, 16], [0.5, 1.0, 1.0], relations=2, answers=6, seed=1),
        recall_curve("attention_only", "d", [4, 8, 16], [0.0, 0.2, 0.5], relations=8, answers=24, seed=0),
        recall_curve("attention_only", "d", [4, 8, 16], [0.0, 0.2, 0.5], relations=8, answers=24, seed=1),
        recall_curve("attention_mlp", "d", [4, 8, 16], [1.0, 1.0, 1.0], relations=2, answers=6, seed=0),
    ])
    table = attention_only_crossings(grid, 0.99)
    assert table["R + A_max"].tolist() == [8, 32]
    first = table.iloc[0]
    # log-interpolated between the last d below 0.99 and the first at or above it: seed 1 between 4 and 8,
    # seed 0 between 8 and 16, and the mean (0.95 at 8) between 8 and 16
    assert math.isclose(first["d* (seed 1)"], 4 * 2 ** ((0.99 - 0.5) / 0.5))
    assert math.isclose(first["d* (seed 0)"], 8 * 2 ** ((0.99 - 0.9) / 0.1))
    assert math.isclose(first["d* (mean)"], 8 * 2 ** ((0.99 - 0.95) / 0.05))
    assert np.isnan(table.iloc[1]["d* (mean)"])  # never reaches the threshold


def test_bootstrap_resamples_whole_seeds():
    """Two seeds whose curves cross between widths 1 and 2 and between 2 and 4: a resample holds one seed twice or
    both, so each crossing is one of three values, and all three appear."""
    group = pd.concat([recall_curve("attention_mlp", "width", [1, 2, 4], [0.0, 1.0, 1.0], seed=0),
                       recall_curve("attention_mlp", "width", [1, 2, 4], [0.0, 0.0, 1.0], seed=1)])
    both = 2 * 2 ** ((0.99 - 0.5) / 0.5)
    crossings = bootstrap_crossings(group, 0.99, 200, np.random.default_rng(0))
    values = set(np.round(crossings, 9))
    assert values == {round(2 ** 0.99, 9), round(2 * 2 ** 0.99, 9), round(both, 9)}
