"""The claims machinery shared by every study: a claim, its uncertainty, its verdict and the ledger table (its
Markdown is icdenoise.records.ledger_text).

A claim is a registry entry in its study (where the source states it, what it says, which config
names it needs, how our value is measured from the study's Parquet tables, and the claim's own
rules for when the measurement cannot decide) plus a block in the study's config under ``claims``:
the source's value, the comparison, the tolerance and why, the inconclusive rules that apply, and
the names it needs (e.g. ``case``), so that no case name is written in code.

A measure returns one value per seed (or context, or draw) where there are several, else one value,
or a :class:`Measurement` that also carries its own 95% interval (a fit's confidence interval, a
bootstrap). Without one, several values give the t-interval of their mean. The verdict is one of

- ``PASS``: the mean lies in the comparison's pass region and no inconclusive rule applies;
- ``FAIL``: the mean lies outside it and no inconclusive rule applies;
- ``INCONCLUSIVE``: one of the claim's configured rules says the measurement cannot decide:
  ``interval`` (the 95% interval reaches both the pass and the fail region, or there is a single
  value and no interval to judge it by), or a rule of the claim's own (``Claim.rules``: e.g. both
  compared models stay on the plateau the claim defines, or the optimum lies at the edge of the grid);
- ``MEASURED``: the claim's block sets ``no_verdict`` instead of a test, because the source gives no number
  to test (or leaves open a setting the number depends on): the ledger reports the measurement and why,
  with no verdict, and counts it apart.

Comparisons (the pass region):
- ``within_absolute``: |ours − paper| ≤ tolerance;
- ``within_relative``: |ours − paper| ≤ tolerance · |paper|;
- ``at_most``: ours ≤ paper + tolerance;   ``at_least``: ours ≥ paper − tolerance.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

import numpy as np
import pandas as pd

Frames = dict[str, pd.DataFrame]
Rule = Callable[[Frames, dict], "str | None"]  # (tables, the claim's config block) → why it cannot decide, or None
LEVEL = 0.95  # the coverage of every interval in a ledger
VERDICTS = ("PASS", "FAIL", "INCONCLUSIVE", "MEASURED")
INTERVAL_RULE = "interval"


@dataclass(frozen=True)
class Measurement:
    """A measure's values and, where the measure knows it better than a t-interval over the values,
    the 95% interval of their mean and how it was obtained."""

    values: np.ndarray
    interval: tuple[float, float] | None = None
    method: str = ""


Measure = Callable[[Frames, dict], "np.ndarray | Measurement"]  # (tables, the claim's config block) → values


@dataclass(frozen=True)
class Claim:
    location: str
    statement: str
    measure: Measure
    needs: tuple[tuple[str, str], ...] = ()  # (key, study block): e.g. ("case", "fig3") - the claim's config
    # block names a case, and it must be one of the study's fig3.cases; ("", block): the claim reads that sub-block
    # and names nothing in it (its history dates it by the sub-blocks named here, icdenoise.records.history)
    rules: Mapping[str, Rule] = field(default_factory=dict)  # name → the claim's own inconclusive rule, applied
    # when the claim's config block lists the name under `inconclusive`


COMPARISONS = ("within_absolute", "within_relative", "at_most", "at_least")


def pass_region(paper_value: float, comparison: str, tolerance: float) -> tuple[float, float]:
    """The closed interval of our values that reproduce the paper's under `comparison`."""
    if comparison == "within_absolute":
        return paper_value - tolerance, paper_value + tolerance
    if comparison == "within_relative":
        return paper_value - tolerance * abs(paper_value), paper_value + tolerance * abs(paper_value)
    if comparison == "at_most":
        return -np.inf, paper_value + tolerance
    if comparison == "at_least":
        return paper_value - tolerance, np.inf
    raise ValueError(f"unknown comparison {comparison!r}; allowed: {', '.join(COMPARISONS)}")


def verdict(value: float, paper_value: float, comparison: str, tolerance: float) -> bool:
    """Whether our value lies in the comparison's pass region."""
    low, high = pass_region(paper_value, comparison, tolerance)
    return bool(low <= value <= high)


def straddles(interval: tuple[float, float], paper_value: float, comparison: str, tolerance: float) -> bool:
    """Whether the interval reaches both the pass region and outside it."""
    low, high = pass_region(paper_value, comparison, tolerance)
    meets_pass = interval[0] <= high and interval[1] >= low
    meets_fail = interval[0] < low or interval[1] > high
    return bool(meets_pass and meets_fail)


def mean_interval(values: np.ndarray) -> tuple[float, float] | None:
    """The 95% t-interval of the mean of several values; None for one."""
    if values.size < 2:
        return None
    from scipy.stats import t  # imported here: config validation loads this module, and scipy.stats is slow

    half = t.ppf(0.5 + LEVEL / 2, values.size - 1) * values.std(ddof=1) / np.sqrt(values.size)
    return float(values.mean() - half), float(values.mean() + half)


def measured(claim_id: str, claim: Claim, frames: Frames, spec: dict) -> Measurement:
    """The claim's measurement with its interval: the measure's own, else the t-interval over its values."""
    result = claim.measure(frames, spec)
    if not isinstance(result, Measurement):
        result = Measurement(np.asarray(result, dtype=float))
    values = np.atleast_1d(np.asarray(result.values, dtype=float))
    if values.size == 0:
        raise ValueError(f"claim {claim_id}: measured no value")
    if not np.all(np.isfinite(values)):
        return Measurement(values, None, "")
    if result.interval is not None:
        return Measurement(values, tuple(float(end) for end in result.interval), result.method)
    interval = mean_interval(values)
    return Measurement(values, interval, f"t-interval over {values.size} values" if interval else "")


def undecided_because(claim: Claim, measurement: Measurement, frames: Frames, spec: dict) -> str:
    """Why the measurement cannot decide the claim under the rules its config block lists, or ''. A
    measurement that is not finite is judged by the claim's own rules only (the interval rule needs a value)."""
    finite = bool(np.all(np.isfinite(measurement.values)))
    reasons = []
    for rule in spec.get("inconclusive", []):
        if rule == INTERVAL_RULE:
            if not finite:
                continue
            if measurement.interval is None:
                reasons.append("one value and no interval to judge it by")
            elif straddles(measurement.interval, spec["paper_value"], spec["comparison"], spec["tolerance"]):
                low, high = measurement.interval
                reasons.append(f"the 95% interval [{low:.4g}, {high:.4g}] reaches both sides of the bound")
        else:
            reason = claim.rules[rule](frames, spec)
            if reason:
                reasons.append(f"{rule}: {reason}")
    return "; ".join(reasons)


def ledger(registry: dict[str, Claim], frames: Frames, claims_config: dict, definitions: Mapping[str, dict] | None = None) -> pd.DataFrame:
    """One row per configured claim, in registry order. `definitions`: claim id → its registration
    (icdenoise.records.study_locks.study_registration: defined_in, built_from, registered, registration), shown in
    the ledger; a claim without one is not registered."""
    rows = []
    for claim_id, claim in registry.items():
        if claim_id not in claims_config:
            continue
        spec = claims_config[claim_id]
        measurement = measured(claim_id, claim, frames, spec)
        mean = float(measurement.values.mean())
        low, high = measurement.interval if measurement.interval else (np.nan, np.nan)
        rows.append({
            "claim": claim_id, "location": claim.location, "statement": claim.statement,
            **_test(claim_id, claim, measurement, frames, spec),
            "ours_mean": mean, "ours_min": float(measurement.values.min()), "ours_max": float(measurement.values.max()),
            "n_values": measurement.values.size, "interval_low": low, "interval_high": high,
            "interval_method": measurement.method,
            "exploratory": spec.get("exploratory", ""), "self_check": spec.get("self_check", ""),
            "implied_by": spec.get("implied_by", ""), "superseded_by": spec.get("superseded_by", ""),
            "no_verdict": spec.get("no_verdict", ""),
            **_registration((definitions or {}).get(claim_id)),
        })
    return pd.DataFrame(rows)


def _test(claim_id: str, claim: Claim, measurement: Measurement, frames: Frames, spec: dict) -> dict:
    """A row's test columns and verdict: PASS, FAIL or INCONCLUSIVE under the claim's test, or MEASURED (no
    paper value, comparison or tolerance) for a claim whose block sets `no_verdict`."""
    if spec.get("no_verdict"):
        return {"paper_value": np.nan, "comparison": "", "tolerance": np.nan, "tolerance_reason": spec["no_verdict"],
                "inconclusive_rules": "", "verdict": "MEASURED", "why_inconclusive": ""}
    mean = float(measurement.values.mean())
    why = undecided_because(claim, measurement, frames, spec)
    if not np.isfinite(mean) and not why:
        raise ValueError(f"claim {claim_id}: measured {measurement.values.tolist()}, not a finite value, and none of its "
                         f"inconclusive rules ({', '.join(spec.get('inconclusive', [])) or 'none'}) explains why")
    passed = verdict(mean, spec["paper_value"], spec["comparison"], spec["tolerance"])
    return {"paper_value": spec["paper_value"], "comparison": spec["comparison"], "tolerance": spec["tolerance"],
            "tolerance_reason": spec["tolerance_reason"], "inconclusive_rules": ", ".join(spec.get("inconclusive", [])),
            "verdict": "INCONCLUSIVE" if why else ("PASS" if passed else "FAIL"), "why_inconclusive": why}


def _registration(entry: dict | None) -> dict:
    """A row's registration columns; without an entry, not registered."""
    if entry is None:
        return {"defined_in": "unknown", "built_from": "unknown", "registered": False,
                "registration": "not registered: no registration was looked up"}
    return {key: entry[key] for key in ("defined_in", "built_from", "registered", "registration")}


def reference_problems(registry: dict[str, Claim], claims_config: dict, study_config: dict, prefix: str) -> list[str]:
    """Each configured claim carries the names it needs, and each name is one its table holds: a
    ``case`` among the cases of the study block that the claim's `needs` entry points to, a ``model``
    or ``versus`` among its models. Each inconclusive rule it lists is ``interval`` or one of the claim's own."""
    problems = []
    for claim_id, spec in claims_config.items():
        for key, block in registry[claim_id].needs:
            if block not in study_config:
                problems.append(f"{prefix}.{claim_id}: reads the sub-block {block!r}, which the study's block does not hold")
                continue
            if not key:
                continue
            if key not in spec:
                problems.append(f"{prefix}.{claim_id}.{key}: missing (the claim reads its {key} from the config)")
                continue
            listed = study_config[block]["cases" if key == "case" else "models"]
            if spec[key] not in listed:
                problems.append(f"{prefix}.{claim_id}.{key}: {spec[key]!r} is not in {block}.{'cases' if key == 'case' else 'models'} "
                                f"(allowed: {', '.join(listed)})")
        for key in ("implied_by", "superseded_by"):
            if key in spec and (spec[key] not in claims_config or spec[key] == claim_id):
                problems.append(f"{prefix}.{claim_id}.{key}: {spec[key]!r} is not another configured claim of this "
                                f"study (allowed: {', '.join(sorted(set(claims_config) - {claim_id}))})")
        allowed = [INTERVAL_RULE, *registry[claim_id].rules]
        for rule in spec.get("inconclusive", []):
            if rule not in allowed:
                problems.append(f"{prefix}.{claim_id}.inconclusive: {rule!r} is not a rule of this claim (allowed: {', '.join(allowed)})")
    return problems
