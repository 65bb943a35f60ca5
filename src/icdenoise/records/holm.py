"""One family-wise adjustment beside the per-claim verdicts: a p-value for each verdict, read from what the ledger
holds, and Holm's step-down over the source's claims of one study in one run (docs/holm.md). The per-claim verdict
(icdenoise.records.claims) is never changed; the adjustment adds the columns `COLUMNS` beside it.

**The p-value of a verdict** (``p_value``), from the row's mean m, its 95% interval [lo, hi], its number of values n,
how the interval was obtained (``interval_method``) and the pass region [L, H] of its comparison
(icdenoise.records.claims.pass_region):

- For one finite edge e of [L, H]: the half of the interval on e's side of the mean, h = m − lo for an edge below
  the mean and hi − m above it (where that half is empty, the interval ending at the mean, or negative, a bootstrap
  interval beside it: the whole width over 2), is taken as q standard errors, SE = h / q, and
  p_e = 2·(1 − F(|m − e| / SE)); p_e = 1 for m = e. F and q: Student's t with n − 1 degrees of freedom and its
  97.5% quantile for the t-interval over n ≥ 2 values, which is exact under that interval's own assumptions;
  otherwise the standard normal and q = 1.959964, **a normal approximation**: exact up to the standard error's
  estimate for a Monte-Carlo mean ± 1.96 standard errors, anti-conservative for a least-squares slope's t-based
  interval over few points (its degrees of freedom are not in the ledger), approximate for a bootstrap's
  percentile interval, conservative for a Bonferroni-simultaneous interval.
- A mean inside [L, H] (PASS, or INCONCLUSIVE on the pass side): the verdict rejects "the true value lies outside
  the pass region", and p is the largest p_e over the finite edges (two one-sided tests, one per edge). A mean
  outside (FAIL, or INCONCLUSIVE on the fail side): the verdict rejects "the true value lies in the pass region",
  and p is p_e of the edge the mean is beyond.
- p is thus the two-sided level at which the interval, stretched or shrunk about the mean, just touches the edge:
  p ≤ 0.05 exactly when the 95% interval lies on the mean's side of every edge that decides. A verdict decided by
  the rule ``interval`` has p ≤ 0.05, a claim left INCONCLUSIVE by it has p > 0.05, and a family of one claim keeps
  its verdict after Holm. A PASS or FAIL of a claim that does not list the rule ``interval`` (decided by its mean
  alone) may have p > 0.05.

**No p-value** (``p_basis`` says why), where the ledger holds no interval that a p-value could be read from: no
verdict (MEASURED); an INCONCLUSIVE row that a rule of the claim's own left undecided (not tested: counted apart,
never in the family's count); one value and no interval; an interval of zero width (an exact closed form, or values
all equal: the ledger shows no spread to judge by); 0/1 outcomes per seed (a Clopper-Pearson interval, or a
t-interval over 0/1 values, whose normal reading is wrong at the few seeds we have); a mean that is not finite. A
PASS or FAIL without a p-value is **not adjustable**: its ``holm_verdict`` is the verdict with "(not adjustable)"
and the headline counts it apart.

**How the interval was obtained**, where the row does not say (a snapshot written before snapshots kept
``interval_method``): the t-interval over n values when n ≥ 2 and the interval is symmetric about the mean to the
snapshot's six digits (the conservative reading: a symmetric interval of a measure's own with n ≥ 2 values gets the
t's heavier tails), the normal approximation otherwise; 0/1 outcomes when n ≥ 2, the least and largest values are
each 0 or 1 and n·m is a whole number.

**The family** is the source's claims of one study in one run, as the ledger's headline counts them
(icdenoise.records.ledger_text.source_claims): each statement once, a confirmatory twin in place of the claim it
repeats, without self-checks, implied claims, superseded readings and measurements with no verdict. Of those, the
rows with a p-value are the claims tested (their number N is Holm's m); Holm's step-down at family-wise
α = `ALPHA`: with the p-values sorted, p_(1) ≤ … ≤ p_(m), the adjusted p_(i) is
min(1, max over j ≤ i of (m − j + 1)·p_(j)) (``holm_p``). ``holm_verdict``: a PASS or FAIL whose adjusted p is at
most α keeps its verdict, one above α is "inconclusive after Holm"; an INCONCLUSIVE stays INCONCLUSIVE. Rows outside
the family keep their p-value but get no adjusted one and an empty ``holm_verdict``.

The adjustment was written after the ledgers' verdicts were seen, and is not registered in any claims lock: it
reads only the ledger's own columns, each of which is, and decides no per-claim verdict. This module is the
ledger's bookkeeping (icdenoise.pipeline.codedeps.BOOKKEEPING), part of no claim's digest.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd

from icdenoise.records.claims import LEVEL, pass_region
from icdenoise.records.ledger_text import AFTER_HOLM, ALPHA, NOT_ADJUSTABLE, holm_counts, source_claims

COLUMNS = ("p_value", "p_basis", "holm_p", "holm_verdict")
counts = holm_counts  # the family's numbers, as the ledger's headline states them
T_METHOD = re.compile(r"\bt-interval over\b")  # icdenoise.records.claims.measured's default, and a paired one
DISCRETE_METHOD = re.compile(r"Clopper-Pearson", re.I)
INTERVAL_REASON = re.compile(r"the 95% interval \[[^\]]*\] reaches both sides of the bound")  # claims.undecided_because


def holm(p_values) -> np.ndarray:
    """Holm's step-down adjusted p-values, in the order given: min(1, max over j ≤ i of (m − j + 1)·p_(j)) for the
    i-th smallest of m."""
    p = np.asarray(p_values, dtype=float)
    m = p.size
    order = np.argsort(p, kind="stable")
    adjusted = np.empty(m)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, (m - rank) * p[index])
        adjusted[index] = min(1.0, running)
    return adjusted


def _quantile(n: int | None) -> float:
    """The 97.5% quantile of Student's t with n − 1 degrees of freedom, or of the standard normal (n None)."""
    from scipy.stats import norm, t  # imported here, as in icdenoise.records.claims: scipy.stats is slow

    return float(t.ppf(0.5 + LEVEL / 2, n - 1)) if n else float(norm.ppf(0.5 + LEVEL / 2))


def _two_sided(statistic: float, n: int | None) -> float:
    from scipy.stats import norm, t

    return float(2 * (t.sf(statistic, n - 1) if n else norm.sf(statistic)))


def edge_p_value(mean: float, low: float, high: float, edge: float, n: int | None) -> float:
    """p_e: the two-sided level at which the interval [low, high] about `mean`, read on `edge`'s side, just touches
    `edge`; `n`: the t-interval's number of values (None: the normal approximation)."""
    if mean == edge:
        return 1.0
    half = (mean - low) if edge < mean else (high - mean)
    if not half > 0:
        half = (high - low) / 2
    return _two_sided(abs(mean - edge) / (half / _quantile(n)), n)


def _symmetric(mean: float, low: float, high: float) -> bool:
    return abs((mean - low) - (high - mean)) <= 1e-4 * (high - low)


def _zero_one(row) -> bool:
    n = int(row["n_values"])
    return (n >= 2 and row["ours_min"] in (0.0, 1.0) and row["ours_max"] in (0.0, 1.0)
            and abs(n * row["ours_mean"] - round(n * row["ours_mean"])) < 1e-6 * n)


def _own_rule(why: str) -> bool:
    """Whether a rule of the claim's own (not ``interval``) left it undecided."""
    rest = INTERVAL_REASON.sub("", why or "").replace("one value and no interval to judge it by", "")
    return bool(rest.replace(";", "").strip())


def p_value(row) -> tuple[float, str]:
    """(the p-value of a ledger row's verdict, how it was obtained or why there is none); `row`: a mapping of the
    ledger's or a snapshot's columns (`interval_method` may be absent)."""
    verdict = row["verdict"]
    if verdict not in ("PASS", "FAIL", "INCONCLUSIVE"):
        return math.nan, "no verdict"
    why = row.get("why_inconclusive")
    if verdict == "INCONCLUSIVE" and _own_rule(why if isinstance(why, str) else ""):
        return math.nan, "undecided by a rule of its own"
    mean, low, high = float(row["ours_mean"]), float(row["interval_low"]), float(row["interval_high"])
    if not math.isfinite(mean):
        return math.nan, "no finite value"
    if not (math.isfinite(low) and math.isfinite(high)):
        return math.nan, "one value and no interval"
    method = row.get("interval_method")
    known = isinstance(method, str) and bool(method)
    if not high > low:
        return math.nan, "an interval of zero width"
    if (known and DISCRETE_METHOD.search(method)) or _zero_one(row):
        return math.nan, "0/1 outcomes per seed"
    n = int(row["n_values"])
    t_interval = n >= 2 and (bool(T_METHOD.search(method)) if known else _symmetric(mean, low, high))
    basis = (f"t, {n - 1} degree{'' if n == 2 else 's'} of freedom" if t_interval else "normal approximation") + ("" if known else ", method inferred")
    region = pass_region(float(row["paper_value"]), row["comparison"], float(row["tolerance"]))
    edges = [edge for edge in region if math.isfinite(edge)]
    tests = [edge_p_value(mean, low, high, edge, n if t_interval else None) for edge in edges]
    if region[0] <= mean <= region[1]:
        return max(tests), basis
    beyond = region[0] if mean < region[0] else region[1]
    return tests[edges.index(beyond)], basis


def with_holm(table: pd.DataFrame) -> pd.DataFrame:
    """The ledger table (or a snapshot's) with the columns `COLUMNS`: each row's p-value and its basis, and over
    the family (`source_claims`) Holm's adjusted p and the verdict that survives it. The table given is left as it was."""
    table = table.copy()
    found = [p_value(row) for row in table.to_dict("records")]
    table["p_value"] = [p for p, _ in found]
    table["p_basis"] = [basis for _, basis in found]
    family = source_claims(table).to_numpy()
    tested = family & table["p_value"].notna().to_numpy()
    adjusted = np.full(len(table), np.nan)
    adjusted[tested] = holm(table["p_value"].to_numpy()[tested])
    table["holm_p"] = adjusted
    verdicts = []
    for verdict, in_family, p in zip(table["verdict"], family, adjusted):
        if not in_family:
            verdicts.append("")
        elif verdict not in ("PASS", "FAIL"):
            verdicts.append(verdict)
        elif np.isnan(p):
            verdicts.append(f"{verdict} ({NOT_ADJUSTABLE})")
        else:
            verdicts.append(verdict if p <= ALPHA else AFTER_HOLM)
    table["holm_verdict"] = verdicts
    return table
