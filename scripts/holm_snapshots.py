#!/usr/bin/env python3
"""Holm's adjustment applied to the committed ledger snapshots, docs/ledgers/<run>/<study>.csv: per run and study,
how many of the source's claims were tested and how many verdicts hold after it (icdenoise.records.holm;
docs/holm.md). Nothing is re-run: each snapshot's own columns are read, and a snapshot
written before snapshots kept the adjustment's columns gets them computed from its other columns (its intervals'
methods inferred).

Usage: python scripts/holm_snapshots.py [--claims]    (--claims: every claim of the family with its p-values)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

import pandas as pd  # noqa: E402

from icdenoise.records.holm import AFTER_HOLM, COLUMNS, counts, with_holm  # noqa: E402
from icdenoise.records.ledger_snapshots import FOLDER, read_snapshot  # noqa: E402
from icdenoise.records.ledger_text import source_claims  # noqa: E402


def adjusted(root: Path = REPO) -> list[tuple[str, str, str, pd.DataFrame]]:
    """(run, study, 'recorded' or 'computed', the snapshot's table with the adjustment's columns) for every snapshot
    under `root`/docs/ledgers, the default run's first."""
    found = []
    for path in sorted((root / FOLDER).glob("*/*.csv"), key=lambda path: (path.parent.name != "default", path.parent.name, path.stem)):
        table = read_snapshot(path).table
        recorded = set(COLUMNS) <= set(table)
        found.append((path.parent.name, path.stem, "recorded" if recorded else "computed", table if recorded else with_holm(table)))
    return found


def summary(found) -> list[dict]:
    """One row per snapshot: the family's numbers (icdenoise.records.holm.counts) and the verdicts Holm leaves
    inconclusive."""
    return [{"run": run, "study": study, "columns": how, **counts(table),
             "inconclusive_after_holm": list(table.loc[table["holm_verdict"] == AFTER_HOLM, "claim"])}
            for run, study, how, table in found]


def main(arguments: list[str] | None = None, root: Path = REPO) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--claims", action="store_true", help="list every claim of each family with its p-values")
    options = parser.parse_args(arguments)
    found = adjusted(root)
    print("| run | study | source claims | tested (Holm's m) | pass or fail among them | hold after Holm | "
          "not adjustable | Holm's columns |")
    print("|---|---|---|---|---|---|---|---|")
    for row in summary(found):
        print(f"| {row['run']} | {row['study']} | {row['family']} | {row['tested']} | {row['decided']} | {row['hold']} | "
              f"{row['not_adjustable']} | {row['columns']} |")
    for row in summary(found):
        if row["inconclusive_after_holm"]:
            print(f"{row['run']}/{row['study']}: inconclusive after Holm: {', '.join(row['inconclusive_after_holm'])}")
    if options.claims:
        for run, study, _, table in found:
            family = table[source_claims(table)]
            print(f"\n{run}/{study}")
            print(family[["claim", "verdict", "p_value", "holm_p", "holm_verdict", "p_basis"]].to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
