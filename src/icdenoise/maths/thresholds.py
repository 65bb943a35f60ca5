"""Where a score crosses a success threshold on a grid: the boundary of a phase diagram. The memory study
reads the parameters a factual-recall model needs (Bietti 2025 slide 11) and the embedding dimension the
planted-token induction head needs (slide 24) from grids of trained or stepped models."""

from __future__ import annotations

import numpy as np

NEVER, ALWAYS, CROSSES = "never reaches the threshold on the grid", "reaches the threshold at the grid's first point", ""


def log_crossing(x, score, threshold: float) -> tuple[float, str]:
    """The x at which `score` first reaches `threshold` along increasing x, interpolated linearly in log x
    between the last grid point below and the first at or above it, and "" - or NaN and the reason when the
    grid does not bracket it (NEVER, or ALWAYS when the first point already succeeds). Needs positive x;
    repeated x are averaged first (seeds of one grid point)."""
    x, score = np.asarray(x, dtype=float), np.asarray(score, dtype=float)
    if x.shape != score.shape or x.size == 0:
        raise ValueError(f"a crossing needs paired x and scores, got {x.size} x and {score.size} scores")
    if np.any(x <= 0):
        raise ValueError("a crossing on a log grid needs positive x")
    grid = np.unique(x)
    mean = np.array([score[x == value].mean() for value in grid])
    reached = np.flatnonzero(mean >= threshold)
    if reached.size == 0:
        return float("nan"), NEVER
    first = int(reached[0])
    if first == 0:
        return float("nan"), ALWAYS
    low, high = np.log(grid[first - 1]), np.log(grid[first])
    fraction = (threshold - mean[first - 1]) / (mean[first] - mean[first - 1])
    return float(np.exp(low + fraction * (high - low))), CROSSES
