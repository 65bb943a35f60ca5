#!/usr/bin/env python3
"""Print (or write as CSV) each claim's history, computed from git: for every study of every run the configs register
(config/config.yaml's run, then each config/*.yaml that names a run of its own, merged over it), the commit where the
claim's bound and deciding settings took their current values (`first_written`), the first commit holding a result of
it (`first_result`), whether its settings changed after that result, whether it is confirmatory, why not, and the
commit that added its current line to its study's claims.lock (`locked_in`; a move from one lock file to another adds
nothing), for a referee to check against `git log -p`
(icdenoise.records.history; docs/claims.md, "History").

Usage: python scripts/claim_history.py [--run RUN ...] [--study STUDY ...] [--output FILE.csv] [--timing]
--run: `default` for config/config.yaml's run, or a run's name; --timing: the seconds each study and run took, on
stderr (the first of a process also reads the repository's commits).
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from icdenoise.pipeline.config import load_yaml  # noqa: E402
from icdenoise.pipeline.named_runs import run_prefix  # noqa: E402
from icdenoise.pipeline.registry import load_studies  # noqa: E402
from icdenoise.records.history import Repository, git_in, merged, run_folder, study_history  # noqa: E402
from icdenoise.records.registration import tracked_locks, lock_history, registered_in  # noqa: E402

BASE = "config/config.yaml"
FIELDS = ("run", "study", "claim", "first_written", "first_result", "settings_changed_after_result", "confirmatory",
          "locked_in", "changed", "why")


def runs(root: Path) -> list[tuple[list[str], str, dict]]:
    """(config files in merge order, lock-key prefix, merged config) of config/config.yaml's run, then of each other
    config/*.yaml that names a run of its own (as scripts/lock_claims.py registers them)."""
    base = load_yaml(root / BASE)
    found = [([BASE], "", base)]
    for path in sorted((root / "config").glob("*.yaml")):
        overrides = load_yaml(path) or {}
        name = (overrides.get("run") or {}).get("name")
        if path.name != "config.yaml" and name and name != base["run"]["name"]:
            found.append(([BASE, path.relative_to(root).as_posix()], run_prefix(name, base["run"]["name"]),
                          merged(base, overrides)))
    return found


def locked_in(root: Path) -> dict[str, str]:
    """Lock key → the commit that added its current line to a claims lock (registration.registered_in)."""
    history = lock_history(root) or []
    found = {key: registered_in(history, f"{key} {digest}") for key, digest in tracked_locks(root).items()}
    return {key: commit for key, commit in found.items() if commit}


def table(root: Path, only_runs=(), only_studies=(), timing: bool = False) -> list[dict]:
    start = time.perf_counter()
    repository = Repository(git_in(root))
    locks = locked_in(root)
    if timing:
        print(f"repository and lock history: {time.perf_counter() - start:.2f} s", file=sys.stderr)
    rows = []
    for files, prefix, config in runs(root):
        run = run_folder(prefix)
        if only_runs and run not in only_runs:
            continue
        committed = [file for file in files if repository.config(repository.head, file) is not None]
        if committed != files:
            print(f"claim_history.py: {', '.join(sorted(set(files) - set(committed)))} is not committed: run {run} left out",
                  file=sys.stderr)
            continue
        for name, study in load_studies(config["studies"]).items():
            if only_studies and name not in only_studies:
                continue
            start = time.perf_counter()
            histories = study_history(repository, study, files, prefix)
            if timing:
                print(f"{run}/{name}: {len(histories)} claims, {time.perf_counter() - start:.2f} s", file=sys.stderr)
            for claim, history in histories.items():
                rows.append({"run": run, "study": name, "claim": claim, **history.columns(),
                             "locked_in": locks.get(f"{prefix}{name}.{claim}", ""), "changed": " ".join(history.changed),
                             "why": history.why})
    return rows


def main(arguments: list[str] | None = None, root: Path = REPO) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--run", nargs="+", default=[], help="only these runs (default: every one)")
    parser.add_argument("--study", nargs="+", default=[], help="only these studies (default: every one)")
    parser.add_argument("--output", type=Path, help="write the table as CSV here instead of printing it")
    parser.add_argument("--timing", action="store_true", help="print the seconds each study and run took on stderr")
    options = parser.parse_args(arguments)
    rows = table(root, options.run, options.study, options.timing)
    for row in rows:
        for column in ("settings_changed_after_result", "confirmatory"):
            row[column] = "true" if row[column] else "false"
    if options.output:
        with open(options.output, "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=FIELDS, lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
        print(f"wrote {options.output}: {len(rows)} claims")
        return 0
    widths = {field: max([len(field), *(len(str(row[field])) for row in rows)]) for field in FIELDS if field not in ("changed", "why")}
    print("  ".join(field.ljust(widths[field]) for field in widths) + "  changed there")
    for row in rows:
        print("  ".join(str(row[field]).ljust(widths[field]) for field in widths) + f"  {row['changed']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
