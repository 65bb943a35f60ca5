"""Capacity by bisection in N: the largest number of stored pairs at which a memory's recall accuracy
stays at or above a threshold, assuming accuracy falls as N grows (it does in expectation; with
embeddings shared across N, as every caller here draws them, it is close to monotone per draw)."""

from __future__ import annotations

import math
from typing import Callable


def largest_n_above(accuracy_at: Callable[[int], float], threshold: float, start: int, max_n: int,
                    precision: float = 0.02) -> tuple[int, list[tuple[int, float]]]:
    """The largest N with accuracy_at(N) ≥ threshold, and every (N, accuracy) evaluated.

    Doubles (or halves) from `start` until N_low passes and N_high fails, then bisects in log N until
    N_high / N_low ≤ 1 + precision or N_high = N_low + 1. Returns 0 when even N = 1 fails. Raises when
    accuracy still passes at `max_n`: the bracket would exceed what the caller can hold, and capping it
    would report a capacity that was never measured."""
    if not 1 <= start <= max_n:
        raise ValueError(f"start = {start} must lie in [1, max_n = {max_n}]")
    evaluations: list[tuple[int, float]] = []

    def passes(n: int) -> bool:
        accuracy = float(accuracy_at(n))
        evaluations.append((n, accuracy))
        return accuracy >= threshold

    if passes(start):
        low, high = start, None
        while high is None:
            if low == max_n:
                raise ValueError(f"accuracy is still ≥ {threshold} at N = max_n = {max_n}: raise the search limit")
            candidate = min(2 * low, max_n)
            if passes(candidate):
                low = candidate
            else:
                high = candidate
    else:
        low, high = None, start
        while low is None:
            if high == 1:
                return 0, evaluations
            candidate = max(high // 2, 1)
            if passes(candidate):
                low = candidate
            else:
                high = candidate
    while high > low + 1 and high / low > 1 + precision:
        middle = min(max(round(math.sqrt(low * high)), low + 1), high - 1)
        if passes(middle):
            low = middle
        else:
            high = middle
    return low, evaluations
