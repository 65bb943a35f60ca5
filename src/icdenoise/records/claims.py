"""The claims machinery shared by every study: a claim, its verdict, the ledger and its Markdown.

A claim is a registry entry in its study (where the source states it, what it says, which config
names it needs, and how our value is measured from the study's Parquet tables) plus a block in the
study's config under ``claims``: the source's value, the comparison, the tolerance and why, and the
names it needs (e.g. ``case``), so that no case name is written in code. Measurements return one
value per seed where seeds exist, else one value; the verdict uses their mean and the ledger also
shows their range.

Comparisons:
- ``within_absolute``: |ours − paper| ≤ tolerance;
- ``within_relative``: |ours − paper| ≤ tolerance · |paper|;
- ``at_most``: ours ≤ paper + tolerance;   ``at_least``: ours ≥ paper − tolerance.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd

Frames = dict[str, pd.DataFrame]
Measure = Callable[[Frames, dict], np.ndarray]  # (tables, the claim's config block) → values


@dataclass(frozen=True)
class Claim:
    location: str
    statement: str
    measure: Measure
    needs: tuple[tuple[str, str], ...] = ()  # (key, study block): e.g. ("case", "fig3") - the claim's config
    # block names a case, and it must be one of the study's fig3.cases


COMPARISONS = ("within_absolute", "within_relative", "at_most", "at_least")


def verdict(value: float, paper_value: float, comparison: str, tolerance: float) -> bool:
    """Whether our value reproduces the paper's under the configured comparison."""
    if comparison == "within_absolute":
        return abs(value - paper_value) <= tolerance
    if comparison == "within_relative":
        return abs(value - paper_value) <= tolerance * abs(paper_value)
    if comparison == "at_most":
        return value <= paper_value + tolerance
    if comparison == "at_least":
        return value >= paper_value - tolerance
    raise ValueError(f"unknown comparison {comparison!r}; allowed: {', '.join(COMPARISONS)}")


def ledger(registry: dict[str, Claim], frames: Frames, claims_config: dict) -> pd.DataFrame:
    """One row per configured claim, in registry order."""
    rows = []
    for claim_id, claim in registry.items():
        if claim_id not in claims_config:
            continue
        spec = claims_config[claim_id]
        values = np.atleast_1d(np.asarray(claim.measure(frames, spec), dtype=float))
        if values.size == 0 or not np.all(np.isfinite(values)):
            raise ValueError(f"claim {claim_id}: measured {values.tolist()}, not a finite value")
        mean = float(values.mean())
        rows.append({
            "claim": claim_id, "location": claim.location, "statement": claim.statement,
            "paper_value": spec["paper_value"], "comparison": spec["comparison"], "tolerance": spec["tolerance"],
            "tolerance_reason": spec["tolerance_reason"], "ours_mean": mean, "ours_min": float(values.min()),
            "ours_max": float(values.max()), "n_values": values.size,
            "passed": verdict(mean, spec["paper_value"], spec["comparison"], spec["tolerance"]),
        })
    return pd.DataFrame(rows)


def markdown_cell(text) -> str:
    """Text safe inside a Markdown table cell."""
    return str(text).replace("|", "\\|")


def built_from(sources: dict) -> str:
    """One line naming the run, its config files (with their hashes) and the merged config's digest."""
    files = ", ".join(f"`{entry['file']}` (sha256 {entry['sha256'][:12]})" for entry in sources["files"])
    return f"Run `{sources['run']}`. Config: {files}; merged config sha256 {sources['merged_sha256'][:12]}."


def markdown(table: pd.DataFrame, title: str, built_by: str, sources: dict) -> str:
    """A readable ledger: a summary line, the config it was built from, and one table row per claim."""
    passed = int(table["passed"].sum())
    failed = len(table) - passed
    lines = [
        f"# Claims ledger: {title}",
        "",
        f"{passed} of {len(table)} claims reproduce; {failed} {'does' if failed == 1 else 'do'} not. Ours: mean [min, max] over seeds where "
        f"there are seeds. Built by `{built_by}` from the pipeline's Parquet tables.",
        "",
        built_from(sources),
        "",
        "| claim | where | statement | paper value or bound | ours | test | verdict | why this tolerance |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in table.itertuples():
        ours = f"{row.ours_mean:.4g}" + (f" [{row.ours_min:.4g}, {row.ours_max:.4g}]" if row.n_values > 1 else "")
        test = {"within_absolute": f"± {row.tolerance:g}", "within_relative": f"± {100 * row.tolerance:g}%",
                "at_most": f"≤ paper + {row.tolerance:g}", "at_least": f"≥ paper − {row.tolerance:g}"}[row.comparison]
        lines.append(f"| `{row.claim}` | {markdown_cell(row.location)} | {markdown_cell(row.statement)} | {row.paper_value:g} | {ours} | "
                     f"{test} | {'PASS' if row.passed else '**FAIL**'} | {markdown_cell(row.tolerance_reason)} |")
    return "\n".join(lines) + "\n"


def reference_problems(registry: dict[str, Claim], claims_config: dict, study_config: dict, prefix: str) -> list[str]:
    """Each configured claim carries the names it needs, and each name is one its table holds: a
    ``case`` among the cases of the study block that the claim's `needs` entry points to, a ``model``
    or ``versus`` among its models."""
    problems = []
    for claim_id, spec in claims_config.items():
        for key, block in registry[claim_id].needs:
            if key not in spec:
                problems.append(f"{prefix}.{claim_id}.{key}: missing (the claim reads its {key} from the config)")
                continue
            listed = study_config[block]["cases" if key == "case" else "models"]
            if spec[key] not in listed:
                problems.append(f"{prefix}.{claim_id}.{key}: {spec[key]!r} is not in {block}.{'cases' if key == 'case' else 'models'} "
                                f"(allowed: {', '.join(listed)})")
    return problems
