"""Slide 24's learnability threshold read off a grid (Vural, Wu and Bietti, 2025+): the theorem's threshold
d ≍ (T²/N)·min{1, (N²/(T n))^{2/3}} without constants, its log-log slope in T, the success boundary d* of
a grid of three-step runs (`planted.threshold_grid`) with its fitted slope, and the lengths at which the theorem's
T-term is the binding one: in its 4/3 regime (N²/(T n) < 1) and a registered factor above the slide's other
condition d ≫ √N (`above_floor`). No torch: the ledger reads these."""

from __future__ import annotations

import numpy as np
import pandas as pd

from icdenoise.maths.fits import loglog_slope_where_defined
from icdenoise.maths.thresholds import log_crossing

MIN_LENGTHS = 3  # a slope in T read above the floor needs at least three lengths (a line through two always fits)
BOUNDARY_COLUMNS = ("vocabulary", "length", "samples", "seed", "d_star", "reason", "theory_d", "threshold")


def theory_d(vocabulary, length, samples):
    """Slide 24's threshold without constants: (T²/N)·min{1, (N²/(T n))^{2/3}} (arrays broadcast)."""
    vocabulary, length, samples = (np.asarray(value, dtype=float) for value in (vocabulary, length, samples))
    return length ** 2 / vocabulary * np.minimum(1.0, (vocabulary ** 2 / (length * samples)) ** (2 / 3))


def theory_slope(vocabulary: int, lengths, samples: int) -> float:
    """The theorem's own log-log slope of theory_d against T over `lengths` at fixed N and n (least squares):
    2 where n ≤ N²/T on the whole grid, 4/3 where n ≥ N²/T, in between across the kink."""
    lengths = np.asarray(lengths, dtype=float)
    return float(np.polyfit(np.log(lengths), np.log(theory_d(vocabulary, lengths, samples)), 1)[0])


def t_term(vocabulary, length, samples):
    """Slide 24's T-term (T²/N)·(N²/(T n))^{2/3} = T^{4/3} N^{1/3} n^{−2/3}, without the min with 1: the threshold
    of the regime N²/(T n) < 1 (arrays broadcast)."""
    vocabulary, length, samples = (np.asarray(value, dtype=float) for value in (vocabulary, length, samples))
    return length ** 2 / vocabulary * (vocabulary ** 2 / (length * samples)) ** (2 / 3)


def above_floor(vocabulary, length, samples, factor: float):
    """Where slide 24's threshold grows as T^{4/3} and not as the floor: N²/(T n) < 1 (the min picks the T-term,
    whose slope in T is 4/3) and the T-term is at least `factor`·√N (the theorem's other condition d ≫ √N would
    otherwise bind first). Boolean, arrays broadcast. With the T-term ≥ factor·√N, a floor of the same constant adds
    at most 1/factor to the threshold, so its local slope in T is at least (4/3)·factor/(factor + 1)."""
    vocabulary, length, samples = (np.asarray(value, dtype=float) for value in (vocabulary, length, samples))
    return (vocabulary ** 2 / (length * samples) < 1) & (t_term(vocabulary, length, samples) >= factor * np.sqrt(vocabulary))


def smallest_length_above_floor(vocabulary: int, samples: int, factor: float) -> float:
    """The smallest (real) T with the T-term ≥ factor·√N at N and n: T = factor^{3/4} N^{1/8} n^{1/2} (solving
    T^{4/3} N^{1/3} n^{−2/3} = factor·N^{1/2}); the regime also needs T > N²/n."""
    return max(factor ** 0.75 * vocabulary ** 0.125 * samples ** 0.5, vocabulary ** 2 / samples)


def success_boundary(table: pd.DataFrame, threshold: float) -> pd.DataFrame:
    """Per (vocabulary, length, samples, seed): d_star, the d at which recall first crosses `threshold`
    (`maths.thresholds.log_crossing`, in log d), the reason when it is NaN, and the theorem's threshold without constants."""
    rows = []
    keys = ["vocabulary", "length", "samples", "seed"]
    for key, run in table.sort_values("d").groupby(keys, sort=True):
        d_star, reason = log_crossing(run["d"], run["recall"], threshold)
        rows.append({**dict(zip(keys, key)), "d_star": d_star, "reason": reason,
                     "theory_d": float(theory_d(*key[:3])), "threshold": threshold})
    return pd.DataFrame(rows, columns=list(BOUNDARY_COLUMNS))


def boundary_slope(boundary: pd.DataFrame, samples: int | None = None) -> tuple[float, float, float]:
    """The log-log slope of d_star against T (seeds pooled, `loglog_slope`) with its 95% interval, at the sample
    size `samples` (default: the one with the most distinct lengths with a finite d_star). NaN where fewer than
    three finite points at two lengths."""
    finite = boundary[np.isfinite(boundary["d_star"])]
    if samples is None:
        counts = finite.groupby("samples")["length"].nunique()
        if counts.empty:
            return np.nan, np.nan, np.nan
        samples = int(counts.idxmax())
    points = finite[finite["samples"] == samples]
    fit = loglog_slope_where_defined(points["length"], points["d_star"])
    return fit["slope"], fit["ci_low"], fit["ci_high"]


def slope_above_floor(boundary: pd.DataFrame, samples: int, factor: float) -> dict:
    """The log-log slope of d_star against T at the sample size `samples` over the lengths `above_floor` (seeds
    pooled, finite d_star only), with its 95% interval, and what it rests on: `qualifying` (the lengths of the
    boundary table at `samples` that are above the floor), `crossing` (those with a finite d_star for at least one
    seed) and `points` (the finite d_star fitted). The slope is NaN unless at least `MIN_LENGTHS` lengths cross."""
    rows = boundary[boundary["samples"] == samples]
    rows = rows[above_floor(rows["vocabulary"], rows["length"], rows["samples"], factor)]
    finite = rows[np.isfinite(rows["d_star"])]
    result = {"qualifying": sorted(int(length) for length in rows["length"].unique()),
              "crossing": sorted(int(length) for length in finite["length"].unique()), "points": len(finite)}
    if len(result["crossing"]) < MIN_LENGTHS:
        return {**result, "slope": np.nan, "ci_low": np.nan, "ci_high": np.nan}
    fit = loglog_slope_where_defined(finite["length"], finite["d_star"])
    return {**result, "slope": fit["slope"], "ci_low": fit["ci_low"], "ci_high": fit["ci_high"]}
