#!/usr/bin/env python3
"""Write docs/ledgers/<run>/<study>.csv: the committed snapshot of each built claims ledger, which the docs'
results blocks quote (icdenoise.records.ledger_snapshots; docs/claims.md, "Results in the docs").

Usage: python scripts/snapshot_ledgers.py [LEDGER.parquet ...] [--allow-unregistered]
Without files: every ledger built here, figures/claims.parquet, figures/*/claims.parquet and the same under
runs/*/. A ledger with a row that is not registered is refused (the message says why and how to build a
citable one) unless --allow-unregistered, which writes it marked not citable. The other ledgers are still
written; the exit status is 1 if any was refused. Then render the docs: python scripts/render_docs_results.py
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from icdenoise.records.ledger_snapshots import SnapshotError, lock_at, registration_at, snapshot_text  # noqa: E402

PATTERNS = ("figures/claims.parquet", "figures/*/claims.parquet", "runs/*/figures/claims.parquet", "runs/*/figures/*/claims.parquet")


def built_ledgers(root: Path) -> list[Path]:
    """Every claims ledger built in the working tree at `root`, the default run's first."""
    return [path for pattern in PATTERNS for path in sorted(root.glob(pattern))]


def shown(path: Path) -> str:
    try:
        return path.resolve().relative_to(REPO).as_posix()
    except ValueError:
        return str(path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("ledgers", nargs="*", type=Path, help="claims.parquet files (default: every one built here)")
    parser.add_argument("--allow-unregistered", action="store_true",
                        help="snapshot a ledger whose rows are not all registered, marked not citable")
    arguments = parser.parse_args()
    ledgers = arguments.ledgers or built_ledgers(REPO)
    if not ledgers:
        print(f"no built ledger under {REPO} ({', '.join(PATTERNS)}): build a study first, e.g. snakemake --cores 2 memory",
              file=sys.stderr)
        return 1
    written, refused = {}, []
    for ledger in ledgers:
        try:
            target, text = snapshot_text(ledger, lock_at(REPO), arguments.allow_unregistered, shown(ledger),
                                         registration_at(REPO))
        except (SnapshotError, OSError) as error:
            refused.append(str(error))
            continue
        if target in written:
            refused.append(f"{shown(ledger)}: {written[target]} already gives {target} (the same run and study)")
            continue
        written[target] = shown(ledger)
        (REPO / target).parent.mkdir(parents=True, exist_ok=True)
        (REPO / target).write_text(text)
        print(f"wrote {target} from {shown(ledger)}")
    for error in refused:
        print(f"refused: {error}", file=sys.stderr)
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main())
