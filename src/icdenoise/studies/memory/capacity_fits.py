"""Capacity exponents (slide 9): log-log slopes with 95% intervals of the capacity against d for each map
and memory, and against m·d for the low-rank and MLP memories (pooled over d, and against m at each d,
column at_d; NaN where a d has too few points), next to the slides' rates N ≈ d² (injective), N ≈ d (few outputs) and N ≈ m d (low rank, MLP)."""

from __future__ import annotations

import pandas as pd

from icdenoise.maths.fits import loglog_slope, loglog_slope_where_defined

SLIDES_SLOPE = {"injective": 2.0, "binary": 1.0, "few": 1.0}


def fit_table(capacities: pd.DataFrame, widths: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per fitted exponent. `capacities`: rows (map, memory, d, seed, capacity); `widths`: rows
    (memory, map, d, m, params_md, seed, capacity) of the low-rank and MLP memories, or None (the confirmatory
    twins' search fits capacity against d only). A capacity of 0 (even one pair failed) cannot enter a log-log
    fit and raises."""
    rows = []
    for (map_name, memory), group in capacities.groupby(["map", "memory"], sort=False):
        rows.append({"map": map_name, "memory": memory, "against": "d", "slides_slope": SLIDES_SLOPE[map_name],
                     "x_min": group["d"].min(), "x_max": group["d"].max(), **loglog_slope(group["d"], group["capacity"])})
    if widths is None:
        return pd.DataFrame(rows)
    for (map_name, memory), group in widths.groupby(["map", "memory"], sort=False):
        rows.append({"map": map_name, "memory": memory, "against": "m·d", "slides_slope": 1.0,
                     "x_min": group["params_md"].min(), "x_max": group["params_md"].max(),
                     **loglog_slope(group["params_md"], group["capacity"])})
        for d, at_d in group.groupby("d"):
            rows.append({"map": map_name, "memory": memory, "against": "m", "at_d": d, "slides_slope": 1.0,
                         "x_min": at_d["m"].min(), "x_max": at_d["m"].max(),
                         **loglog_slope_where_defined(at_d["m"], at_d["capacity"])})
    return pd.DataFrame(rows)
