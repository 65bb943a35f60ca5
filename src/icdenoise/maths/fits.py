"""Power-law exponents with confidence intervals: ordinary least squares of log y on log x, with the
t-interval of the slope. The memory study fits capacities against d (slides: N ≈ d², N ≈ d, N ≈ md) and
Zipf errors against n and d; the onelayer study the excess of eq. 13 over Bayes against L (App. E: 1/L)."""

from __future__ import annotations

import numpy as np
from scipy.special import stdtrit


def loglog_slope(x, y, level: float = 0.95) -> dict:
    """The exponent b of y ≈ a x^b fitted on every (x, y) point (seeds pooled), with its `level` interval.

    Returns slope, ci_low, ci_high, intercept (of log y) and points. Needs at least three points at two
    or more distinct x, all positive."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.shape != y.shape or x.size < 3:
        raise ValueError(f"a log-log fit needs at least 3 paired points, got {x.size} x and {y.size} y")
    if np.any(x <= 0) or np.any(y <= 0):
        raise ValueError("a log-log fit needs positive x and y")
    if np.unique(x).size < 2:
        raise ValueError("a log-log fit needs at least two distinct x")
    log_x, log_y = np.log(x), np.log(y)
    centred = log_x - log_x.mean()
    slope = float(centred @ (log_y - log_y.mean()) / (centred @ centred))
    intercept = float(log_y.mean() - slope * log_x.mean())
    residuals = log_y - intercept - slope * log_x
    dof = x.size - 2
    standard_error = float(np.sqrt(residuals @ residuals / dof / (centred @ centred)))
    half_width = float(stdtrit(dof, 0.5 + level / 2)) * standard_error  # Student's t quantile (scipy.stats' t.ppf)
    return {"slope": slope, "ci_low": slope - half_width, "ci_high": slope + half_width, "intercept": intercept,
            "points": int(x.size)}


def loglog_slope_where_defined(x, y) -> dict:
    """`loglog_slope`, or NaN slope and interval where the points are too few (fewer than 3, or one distinct x)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.size >= 3 and np.unique(x).size >= 2:
        return loglog_slope(x, y)
    return {"slope": np.nan, "ci_low": np.nan, "ci_high": np.nan, "intercept": np.nan, "points": int(x.size)}
