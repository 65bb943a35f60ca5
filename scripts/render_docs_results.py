#!/usr/bin/env python3
"""Fill the docs' results blocks from the committed ledger snapshots (icdenoise.records.docs_results;
docs/claims.md, "Results in the docs").

Usage: python scripts/render_docs_results.py [FILE.md ...]           fill every marker (default: docs/*.md)
       python scripts/render_docs_results.py --check [FILE.md ...]   list every marker that differs; exit 1 if any
A marker is <!-- ledger: docs/ledgers/<run>/<study>.csv [headline] --> ... <!-- /ledger --> (a block: headline
counts and, without "headline", a table of every claim), or <!-- ledger-claim: SNAPSHOT CLAIM [verdict|ours|bound] -->...<!-- /ledger-claim -->
(one claim inline). A snapshot that does not exist yet gives a one-line placeholder. A test runs the check.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from icdenoise.records.docs_results import DocsResultsError, check, markers, render  # noqa: E402


def main(arguments: list[str] | None = None, root: Path = REPO) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", type=Path, help="Markdown files (default: docs/*.md)")
    parser.add_argument("--check", action="store_true", help="change nothing; list every marker that differs from its snapshot")
    options = parser.parse_args(arguments)
    files = [path.resolve() for path in options.files] or None
    if options.check:
        problems = check(root, files)
        for problem in problems:
            print(problem)
        if not problems:
            print(f"the docs' {len(markers(root, files))} ledger markers match their snapshots")
        return 1 if problems else 0
    try:
        changed = render(root, files)
    except DocsResultsError as error:
        print(error, file=sys.stderr)
        return 1
    for path in changed:
        print(f"rendered {path.relative_to(root) if path.is_relative_to(root) else path}")
    if not changed:
        print("every ledger marker was current")
    return 0


if __name__ == "__main__":
    sys.exit(main())
