"""A claims ledger as Markdown: the headline counts, one row per claim with its verdict, each claim's registration
in a table of its own, and what the verdicts let one conclude (the table itself: icdenoise.records.claims.ledger).

This module presents verdicts and decides none: it is not part of any claim's registered digest
(icdenoise.pipeline.codedeps.BOOKKEEPING), so rewording a ledger re-registers nothing.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def markdown_cell(text) -> str:
    """Text safe inside a Markdown table cell."""
    return str(text).replace("|", "\\|")


def built_from(sources: dict) -> str:
    """One line naming the run, its config files (with the digests of their settings) and the merged config's
    digest, each without the execution block (icdenoise.records.artifacts.config_digest)."""
    files = ", ".join(f"`{entry['file']}` (sha256 {entry['sha256'][:12]})" for entry in sources["files"])
    return (f"Run `{sources['run']}`. Config: {files}; merged config sha256 {sources['merged_sha256'][:12]} "
            "(settings only: the execution block, which changes no number, is left out).")


def _counts(rows: pd.DataFrame) -> str:
    counts = rows["verdict"].value_counts()
    return f"{counts.get('PASS', 0)} pass, {counts.get('FAIL', 0)} fail, {counts.get('INCONCLUSIVE', 0)} inconclusive"


def _flag(table: pd.DataFrame, column: str) -> pd.Series:
    """Rows whose text column `column` is set (an older table without it: none)."""
    return table[column].astype(str).str.len().gt(0) if column in table else pd.Series(False, index=table.index)


TWIN_SUFFIX = "_confirmatory"
ALPHA = 0.05  # the family-wise error rate of Holm's step-down (icdenoise.records.holm)
AFTER_HOLM = "inconclusive after Holm"  # holm_verdict of a PASS or FAIL whose adjusted p exceeds ALPHA
NOT_ADJUSTABLE = "not adjustable"  # holm_verdict "<verdict> (not adjustable)": a PASS or FAIL with no p-value


def twins(table: pd.DataFrame) -> dict[str, str]:
    """Each claim a confirmatory twin repeats → its twin (docs/claims.md, "Confirmatory twins"): the twin
    `<claim>_confirmatory` tests the statement of `<claim>`, or of the claim that supersedes it where `<claim>` was
    our earlier reading."""
    claims = table["claim"].astype(str)
    names = set(claims)
    superseded_by = dict(zip(claims, table["superseded_by"].fillna("").astype(str))) if "superseded_by" in table else {}
    found = {}
    for twin in claims[claims.str.endswith(TWIN_SUFFIX)]:
        original, seen = twin.removesuffix(TWIN_SUFFIX), set()
        while superseded_by.get(original) in names and original not in seen:
            seen.add(original)
            original = superseded_by[original]
        if original in names and original != twin:
            found[original] = twin
    return found


def twinned(table: pd.DataFrame) -> pd.Series:
    """The rows a confirmatory twin repeats (`twins`): a claim and its twin are one claim of the source, counted as
    the twin."""
    return table["claim"].astype(str).isin(set(twins(table)))


def source_claims(table: pd.DataFrame) -> pd.Series:
    """The rows that are claims of the source, each counted once: not a self-check, not implied by another
    claim, not superseded, not repeated by a confirmatory twin, and tested (a verdict, not MEASURED)."""
    own, implied, superseded = _flag(table, "self_check"), _flag(table, "implied_by"), _flag(table, "superseded_by")
    return ~own & ~implied & ~superseded & ~twinned(table) & table["verdict"].ne("MEASURED")


def row_groups(table: pd.DataFrame) -> dict[str, pd.Series]:
    """The rows the headline counts, group → rows: the source's claims (`source_claims`) that are registered and
    confirmatory (`confirmatory`: what one cites), registered but exploratory (`exploratory`: a deciding setting
    chosen after a result was seen) and not registered (`not_registered`; icdenoise.records.registration); then,
    apart, the exploratory claims a confirmatory twin repeats (`repeated`, counted as the twin), the measurements
    with no verdict (`measured`), our earlier readings superseded by a claim as the source states it
    (`superseded`), the self-checks of our own code (`self_check`) and the claims counted with the claim that
    implies them (`implied`). Each row is in one group: a superseded row in `superseded` alone, then a self-check in
    `self_check`, then an implied row in `implied` (a twinned or MEASURED row implied by another is not counted again
    as `repeated` or `measured`)."""
    registered = table["registered"].astype(bool) if "registered" in table else pd.Series(False, index=table.index)
    exploratory, superseded = _flag(table, "exploratory"), _flag(table, "superseded_by")
    own, implied = _flag(table, "self_check") & ~superseded, _flag(table, "implied_by") & ~superseded
    implied &= ~own
    apart = superseded | own | implied  # each row in one group only: superseded, then self-check, then implied
    source = source_claims(table)
    return {"confirmatory": source & registered & ~exploratory, "exploratory": source & registered & exploratory,
            "not_registered": source & ~registered, "repeated": twinned(table) & ~apart,
            "measured": table["verdict"].eq("MEASURED") & ~apart, "superseded": superseded,
            "self_check": own, "implied": implied}


HEADLINE_GROUPS = {  # row_groups' group → how the headline names it
    "confirmatory": "Registered, confirmatory",
    "exploratory": "Registered, exploratory (a deciding setting chosen after a result)",
    "not_registered": "Not registered (not citable)",
    "repeated": "Repeated by a confirmatory twin and counted as the twin",
    "measured": "Measured with no verdict (the source gives no number to test)",
    "superseded": "Our earlier readings of the source, superseded by a claim as the source states it",
    "self_check": "Self-checks of our own code, not reproductions",
    "implied": "Implied by another claim and counted there",
}


def headline(table: pd.DataFrame) -> str:
    """How many of the source's claims pass, fail and cannot be decided, in three groups: registered and
    confirmatory (what one cites), registered but exploratory (a deciding setting chosen after a result was
    seen), and not registered (icdenoise.records.registration); then, apart, the exploratory claims a
    confirmatory twin repeats (counted as the twin), the measurements with no verdict, our earlier readings
    superseded by a claim as the source states it, the self-checks of our own code and the claims counted with
    the claim that implies them (`row_groups`). Where the table has the family-wise adjustment's columns
    (icdenoise.records.holm), after the three groups: how many claims were tested and how many verdicts hold after
    Holm's adjustment."""
    source = source_claims(table)
    parts = [f"{int(source.sum())} claim{'' if source.sum() == 1 else 's'} of the source."]
    for group, rows in row_groups(table).items():
        if group == "repeated" and "holm_verdict" in table:
            parts.append(holm_sentence(table))
        if rows.any():
            counted = int(rows.sum()) if group in ("measured", "implied") else _counts(table[rows])
            parts.append(f"{HEADLINE_GROUPS[group]}: {counted}.")
    return " ".join(parts)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def holm_counts(table: pd.DataFrame) -> dict:
    """The family's numbers from a table with the family-wise adjustment's columns (icdenoise.records.holm): the
    source's claims, those tested (with a p-value: Holm's m), the PASS and FAIL verdicts among them, those that hold
    after Holm's adjustment, and the verdicts that are not adjustable."""
    family = source_claims(table)
    tested = family & table["p_value"].notna()
    decided = tested & table["verdict"].isin(["PASS", "FAIL"])
    return {"family": int(family.sum()), "tested": int(tested.sum()), "decided": int(decided.sum()),
            "hold": int((decided & table["holm_verdict"].eq(table["verdict"])).sum()),
            "not_adjustable": int((family & table["holm_verdict"].astype(str).str.endswith(f"({NOT_ADJUSTABLE})")).sum())}


def holm_sentence(table: pd.DataFrame) -> str:
    """The family-wise adjustment's counts (a table with its columns): how many of the source's claims were tested,
    how many of their verdicts hold after Holm's adjustment, and how many verdicts have no p-value."""
    numbers = holm_counts(table)
    text = (f"{_plural(numbers['tested'], 'claim')} tested; {_plural(numbers['hold'], 'verdict')} "
            f"hold{'s' if numbers['hold'] == 1 else ''} after Holm's adjustment (of the {numbers['decided']} that pass or "
            f"fail among them, at family-wise α = {ALPHA:g}: docs/claims.md).")
    if numbers["not_adjustable"]:
        text += (f" {_plural(numbers['not_adjustable'], 'verdict')} with no p-value (no interval, or one of zero width "
                 "or over 0/1 outcomes): not adjustable, counted apart.")
    return text


def holm_text(row) -> str:
    """A row's p-value, its Holm-adjusted p and the verdict that survives Holm's adjustment, as the ledger shows them
    beside the verdict (icdenoise.records.holm)."""
    if row.verdict == "MEASURED":
        return "—"
    p, adjusted, survives = getattr(row, "p_value", np.nan), getattr(row, "holm_p", np.nan), getattr(row, "holm_verdict", "")
    text = f"p {p:.2g}" if np.isfinite(p) else f"no p-value ({getattr(row, 'p_basis', '')})"
    if np.isfinite(adjusted):
        text += f", Holm {adjusted:.2g}"
    return text + (f": {survives}" if survives else " (not in the family)")


def _ours(row) -> str:
    text = f"{row.ours_mean:.4g}"
    if np.isfinite(row.interval_low):
        text += f" (95%: {row.interval_low:.4g} to {row.interval_high:.4g})"
    if row.n_values > 1:
        text += f"; {row.n_values} values in [{row.ours_min:.4g}, {row.ours_max:.4g}]"
    return text


def verdict_text(row, reasons: bool = False) -> str:
    """A row's verdict as the ledger and the docs show it: the verdict (why an undecided claim is undecided), then
    its marks: exploratory, self-check, implied, superseded, not registered; `reasons`: with why it is exploratory
    or a self-check. `row`: a ledger row (a namedtuple of the ledger table or of a snapshot)."""
    shown = {"PASS": "PASS", "FAIL": "**FAIL**", "INCONCLUSIVE": f"*INCONCLUSIVE*: {row.why_inconclusive}",
             "MEASURED": "MEASURED (no verdict)"}[row.verdict]
    exploratory, own = getattr(row, "exploratory", ""), getattr(row, "self_check", "")
    implied, superseded = getattr(row, "implied_by", ""), getattr(row, "superseded_by", "")
    marks = [mark for mark, on in (
        (f"exploratory: {exploratory}" if reasons else "exploratory", exploratory),
        (f"self-check: {own}" if reasons else "self-check", own),
        (f"implied by `{implied}`, counted there", implied),
        (f"our earlier reading, superseded by `{superseded}`", superseded),
        ("not registered", not getattr(row, "registered", False))) if on]
    return shown + (f" ({'; '.join(marks)})" if marks else "")


def conclusions(table: pd.DataFrame) -> list[str]:
    """What the ledger lets a reader conclude: the claims reproduced, those not, and those undecided, with why."""
    lines = ["## What we can and cannot conclude", ""]
    own, implied, superseded = _flag(table, "self_check"), _flag(table, "implied_by"), _flag(table, "superseded_by")
    repeated = twinned(table)
    for name, label in (("PASS", "Reproduced"), ("FAIL", "Not reproduced"), ("INCONCLUSIVE", "Undecided by our measurement"),
                        ("MEASURED", "Measured, with no verdict (the source gives no number to test)")):
        rows = table[(table["verdict"] == name) & ~own & ~implied & ~superseded & ~repeated]
        if rows.empty:
            continue
        lines.append(f"- **{label}** ({len(rows)}):")
        for row in rows.itertuples():
            detail = {"PASS": "", "FAIL": f": ours {row.ours_mean:.4g} against {row.paper_value:g}",
                      "INCONCLUSIVE": f": {row.why_inconclusive}",
                      "MEASURED": f": ours {row.ours_mean:.4g}; {row.tolerance_reason}"}[name]
            tag = " (exploratory)" if getattr(row, "exploratory", "") else ""
            lines.append(f"  - `{row.claim}`{tag}{markdown_cell(detail)}")
    if "holm_verdict" in table:
        after = table[table["holm_verdict"] == AFTER_HOLM]
        if not after.empty:
            lines.append(f"- **Passing or failing alone, inconclusive after Holm's adjustment** ({len(after)}):")
            lines += [f"  - `{row.claim}`: {row.verdict}, p {row.p_value:.2g}, Holm {row.holm_p:.2g}" for row in after.itertuples()]
    verdicts, twin_of = dict(zip(table["claim"], table["verdict"])), twins(table)
    disagree = [(original, twin) for original, twin in twin_of.items() if verdicts[original] != verdicts[twin]]
    if disagree:
        lines.append(f"- **A confirmatory twin that disagrees with the claim it repeats** ({len(disagree)}; the twin, on fresh "
                     "draws, is counted; the original's draws are not pooled with it):")
        lines += [f"  - `{original}`: {verdicts[original]}; its twin `{twin}`: {verdicts[twin]}" for original, twin in disagree]
    for rows, label in ((table[repeated], "Repeated by a confirmatory twin on fresh seeds or draws (counted as the twin)"),
                        (table[superseded], "Our earlier readings, superseded by a claim as the source states it"),
                        (table[own], "Self-checks of our own code (not reproductions)"),
                        (table[implied], "Implied by another claim (counted there)")):
        if not rows.empty:
            lines.append(f"- **{label}** ({len(rows)}):")
            lines += [f"  - `{row.claim}`: {row.verdict}" + (f", implied by `{row.implied_by}`" if row.implied_by else "")
                      + (f", superseded by `{row.superseded_by}`" if getattr(row, "superseded_by", "") else "")
                      for row in rows.itertuples()]
    return lines + [""]


SOFT_HYPHEN = "\u00ad"  # invisible unless the line breaks there; then shown as a hyphen


def hyphenated(syllables: str) -> str:
    """A header word with soft hyphens between its syllables ("in-con-clu-sive"): a narrow page may break it there,
    and only there, so that a column of long prose need not be as wide as its header's longest word."""
    return syllables.replace("-", SOFT_HYPHEN)


def markdown(table: pd.DataFrame, title: str, built_by: str, sources: dict) -> str:
    """A readable ledger: the verdict counts, the config it was built from, one table row per claim, each claim's
    registration in a second table (so that the first fits a narrow page), and what the verdicts let one conclude;
    where the table has the family-wise adjustment's columns (icdenoise.records.holm), each verdict's p-value and the
    verdict that survives Holm's adjustment beside it, and their counts in the headline."""
    holm = "holm_verdict" in table
    lines = [
        f"# Claims ledger: {title}",
        "",
        f"{headline(table)} Ours: the mean, its 95% interval, and the values' range where there are several. "
        f"Built by `{built_by}` from the pipeline's Parquet tables. Each tolerance and inconclusive rule is fixed in "
        "the study's claims.lock before its result; the verdict says where a row is not registered, and the table "
        "`Registration` below gives each claim's: the commit that registered its definition (`defined in`), the "
        "commits where its bound and deciding settings took their current values (`first written`) and where a "
        "result of it was first committed (`first result`), read from git (a claim whose settings do not predate "
        "its first result is exploratory), the commit this ledger was built at, with the devices its training jobs "
        "ran on where they record one (`built from`), and whether the row is citable (docs/claims.md).",
        "",
        built_from(sources),
        "",
        f"| claim | where | {hyphenated('state-ment')} | paper value or bound | ours | test | {hyphenated('ver-dict')} | "
        f"why this {hyphenated('tol-er-ance')} | {hyphenated('in-con-clu-sive')} when |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in table.itertuples():
        test = {"within_absolute": f"± {row.tolerance:g}", "within_relative": f"± {100 * row.tolerance:g}%",
                "at_most": f"≤ paper + {row.tolerance:g}", "at_least": f"≥ paper − {row.tolerance:g}", "": "no verdict"}[row.comparison]
        shown = verdict_text(row, reasons=True)
        paper = "—" if row.verdict == "MEASURED" else f"{row.paper_value:g}"
        lines.append(f"| `{row.claim}` | {markdown_cell(row.location)} | {markdown_cell(row.statement)} | {paper} | "
                     f"{markdown_cell(_ours(row))} | {test} | {markdown_cell(shown)} | {markdown_cell(row.tolerance_reason)} | "
                     f"{markdown_cell(row.inconclusive_rules or 'never')} |")
    if holm:  # a table of its own, as the registration's: a tenth column made the verdicts' too wide for a narrow page
        lines += ["", "## Family-wise adjustment (Holm)", "", "| claim | verdict | p; after Holm |", "|---|---|---|"]
        lines += [f"| `{row.claim}` | {markdown_cell(row.verdict)} | {markdown_cell(holm_text(row))} |"
                  for row in table.itertuples()]
    lines += ["", "## Registration", "", f"| claim | defined in | first written | first result | built from | "
              f"{hyphenated('reg-is-tra-tion')} |", "|---|---|---|---|---|---|"]
    lines += [f"| `{row.claim}` | {markdown_cell(row.defined_in)} | {markdown_cell(getattr(row, 'first_written', '—'))} | "
              f"{markdown_cell(getattr(row, 'first_result', '—'))} | {markdown_cell(row.built_from)} | "
              f"{markdown_cell(row.registration)} |" for row in table.itertuples()]
    return "\n".join(lines + [""] + conclusions(table))
