"""Slide 24's learnability threshold read off a grid (Vural, Wu and Bietti, 2025+): the theorem's threshold
d ≍ (T²/N)·min{1, (N²/(T n))^{2/3}} without constants, its log-log slope in T, and the success boundary d* of
a grid of three-step runs (`planted.threshold_grid`) with its fitted slope. No torch: the ledger reads these."""

from __future__ import annotations

import numpy as np
import pandas as pd

from icdenoise.maths.fits import loglog_slope_where_defined
from icdenoise.maths.thresholds import log_crossing

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
