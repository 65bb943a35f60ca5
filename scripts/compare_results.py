#!/usr/bin/env python3
"""Compare the Parquet tables of two workflow directories (e.g. two branches' runs of one config).

For every table under results/ and figures/ present in both, prints whether the content is equal
(bit-identical values, same columns) and, where not, each differing column with its largest absolute
and relative difference; then the tables found in only one directory. Provenance metadata (commit,
versions) is ignored: only the data are compared.

    python scripts/compare_results.py /tmp/main-run /tmp/branch-run
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd


def tables(root: Path) -> set[str]:
    return {str(path.relative_to(root)) for folder in ("results", "figures") for path in (root / folder).rglob("*.parquet")}


def column_difference(first: pd.Series, second: pd.Series) -> str | None:
    """None if equal, else a description of the difference."""
    if first.dtype.kind in "fc" and second.dtype.kind in "fc":
        a, b = first.to_numpy(float), second.to_numpy(float)
        same = (a == b) | (np.isnan(a) & np.isnan(b))
        if same.all():
            return None
        absolute = np.nanmax(np.abs(a - b))
        relative = np.nanmax(np.abs(a - b) / np.maximum(np.abs(a), np.finfo(float).tiny))
        return f"{(~same).sum()} of {len(a)} values differ, max |Δ| {absolute:.3g}, max relative {relative:.3g}"
    if first.astype(str).equals(second.astype(str)):
        return None
    return f"{(first.astype(str) != second.astype(str)).sum()} of {len(first)} values differ"


def compare(first_root: Path, second_root: Path) -> int:
    first_tables, second_tables = tables(first_root), tables(second_root)
    differing = 0
    for name in sorted(first_tables & second_tables):
        first, second = pd.read_parquet(first_root / name), pd.read_parquet(second_root / name)
        notes = []
        if list(first.columns) != list(second.columns):
            notes.append(f"columns only in first: {sorted(set(first.columns) - set(second.columns))}, "
                         f"only in second: {sorted(set(second.columns) - set(first.columns))}")
        if len(first) != len(second):
            notes.append(f"{len(first)} rows against {len(second)}")
        else:
            for column in [c for c in first.columns if c in second.columns]:
                difference = column_difference(first[column].reset_index(drop=True), second[column].reset_index(drop=True))
                if difference:
                    notes.append(f"{column}: {difference}")
        print(f"{'EQUAL    ' if not notes else 'DIFFERENT'} {name}")
        for note in notes:
            print(f"    {note}")
        differing += bool(notes)
    for name in sorted(first_tables - second_tables):
        print(f"ONLY IN {first_root}: {name}")
    for name in sorted(second_tables - first_tables):
        print(f"ONLY IN {second_root}: {name}")
    print(f"\n{len(first_tables & second_tables) - differing} of {len(first_tables & second_tables)} common tables equal")
    return differing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("first", type=Path)
    parser.add_argument("second", type=Path)
    args = parser.parse_args()
    raise SystemExit(1 if compare(args.first, args.second) else 0)


if __name__ == "__main__":
    main()
