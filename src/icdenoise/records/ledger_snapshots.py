"""Snapshots of built claims ledgers: the small, committed text copy of a ledger that the docs quote.

A ledger (``figures/claims.parquet`` for onelayer, ``figures/<study>/claims.parquet`` for the others, and the
same under ``runs/<run>/`` for a named run) is a build output that git ignores. Its snapshot,
``docs/ledgers/<run>/<study>.csv`` (``<run>`` is ``default`` for the run config/config.yaml names, else the run's
name), is committed: ``scripts/render_docs_results.py`` fills the docs' results blocks from it
(icdenoise.records.docs_results), and a test holds the docs to it.

A snapshot is CSV with a few ``# key: value`` lines before the header row:

- ``snapshot of``: the ledger file; ``ledger sha256``: that file's content hash;
- ``run``, ``study``; ``built at``: the commit the ledger was built from (the full hash) and whether its tree
  was clean;
- ``registration``: every row registered, or how many were not (written only with ``allow_unregistered``:
  such a snapshot is not citable).

Then one row per claim, in the ledger's order, with the columns `COLUMNS` (those of `OPTIONAL` only where the
ledger has them: how each interval was obtained, and the family-wise adjustment's columns, icdenoise.records.holm;
a snapshot written before them lacks them and is read with them absent): the ledger's values as it wrote
them, floats to `DIGITS` significant digits (NaN as ``nan``), booleans as ``true``/``false``, and each claim's
``digest``: its definition's line in the claims locks at the commit the ledger was built from (its study's
``claims.lock``, or, before the locks moved into the studies' folders, config/claims.lock;
icdenoise.records.registration.locks_at). A registered row's digest is the lock's at that commit, because registered
means the ledger was built from a clean tree there and its digest equalled the lock's; the commit that
registered it (``defined_in``) added that very line. A row that is not registered belongs to no registered
definition, and its digest is empty.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pandas as pd

from icdenoise.records.artifacts import read_metadata, sha256_file
from icdenoise.records.registration import lock_history, locks_at, read_lock, registered_in

COLUMNS = (
    "claim", "verdict", "ours_mean", "interval_low", "interval_high", "n_values", "ours_min", "ours_max",
    "paper_value", "comparison", "tolerance", "why_inconclusive", "exploratory", "self_check", "implied_by", "superseded_by",
    "registered", "registration", "defined_in", "built_from",
    "interval_method", "p_value", "p_basis", "holm_p", "holm_verdict", "digest",
)
OPTIONAL = ("interval_method", "p_value", "p_basis", "holm_p", "holm_verdict")  # written where the ledger has them;
# a snapshot written before snapshots kept them lacks them, and is read with them absent (icdenoise.records.holm)
FLOATS = ("ours_mean", "interval_low", "interval_high", "ours_min", "ours_max", "paper_value", "tolerance", "p_value", "holm_p")
DIGITS = 6  # significant digits of every float in a snapshot
DEFAULT_RUN = "default"  # the folder of the run config/config.yaml names
FOLDER = Path("docs") / "ledgers"
HEADER_KEYS = ("snapshot of", "ledger sha256", "run", "study", "built at", "registration", "written by")
WRITER = "scripts/snapshot_ledgers.py"
ALL_REGISTERED = "every row registered"
LockAt = Callable[[str], "str | None"]  # a commit → the lines of every claims lock there, or None (registration.locks_at)
# (a commit, a lock line) → the commit that registered the line in the history up to that commit (registration.registered_in)
RegistrationAt = Callable[[str, str], "str | None"]
LOCKS_SHOWN = "claims lock"  # how the messages name the lock files


class SnapshotError(ValueError):
    """A ledger cannot be snapshotted, or a snapshot cannot be read; the message names the file and the fix."""


@dataclass(frozen=True)
class Snapshot:
    """A snapshot read back: its header (`HEADER_KEYS` → value) and its rows (`COLUMNS`, floats parsed,
    ``registered`` a bool)."""

    header: dict
    table: pd.DataFrame

    @property
    def citable(self) -> bool:
        return self.header.get("registration") == ALL_REGISTERED


def lock_at(root: Path) -> LockAt:
    """The lines of every claims lock of the repository at `root` at a commit (registration.locks_at), None where git
    has none."""
    return lambda commit: locks_at(root, commit)


def registration_at(root: Path) -> RegistrationAt:
    """The commit that registered a lock line in the history of the repository at `root` up to a commit
    (registration.registered_in, which follows a line to the one of the method before whose registration it carries)."""
    histories: dict[str, list] = {}

    def registration(commit: str, line: str) -> str | None:
        if commit not in histories:
            histories[commit] = lock_history(root, commit) or []
        return registered_in(histories[commit], line)

    return registration


def _ledger_facts(path: Path) -> tuple[dict, str, str]:
    """The ledger's provenance document, its study and its lock-key prefix (the run's, "" for the default run)."""
    try:
        metadata = read_metadata(path)
        params = metadata["params"]["params"]
        return metadata, params["study"], params["registered_as"]
    except (KeyError, TypeError, ValueError) as error:
        raise SnapshotError(f"{path}: not a claims ledger written by workflow/scripts/write_ledger.py (its provenance has no "
                            f"{error}); snapshot only figures/[<study>/]claims.parquet and their runs/<run>/ copies") from None


def snapshot_path(run_prefix: str, study: str, folder: Path = FOLDER) -> Path:
    """Where the snapshot of a ledger goes: `folder`/<run>/<study>.csv, <run> being `DEFAULT_RUN` for the run
    config/config.yaml names (lock prefix "") and the run's name otherwise."""
    run = run_prefix.rstrip("/") or DEFAULT_RUN
    return folder / run / f"{study}.csv"


def _cell(column: str, value) -> str:
    if column == "registered":
        return "true" if bool(value) else "false"
    if column in FLOATS:
        value = float(value)
        return "nan" if math.isnan(value) else f"{value:.{DIGITS}g}"
    if column == "n_values":
        return str(int(value))
    return "" if value is None or (isinstance(value, float) and math.isnan(value)) else str(value)


def snapshot_columns(table: pd.DataFrame) -> tuple[str, ...]:
    """The columns a snapshot of the ledger `table` has: `COLUMNS`, less those of `OPTIONAL` the ledger lacks."""
    return tuple(column for column in COLUMNS if column not in OPTIONAL or column in table)


def snapshot_rows(table: pd.DataFrame, study: str, run_prefix: str, build_commit: str, locks: LockAt, source: str,
                  registration: RegistrationAt | None = None) -> list[dict]:
    """The snapshot's rows: the ledger's columns of `snapshot_columns` and each registered row's digest, read from the
    lock at `build_commit` (`locks`) and checked against the lock at the commit that registered it, or, for a line
    that carries the registration of its method's predecessor, against the history (`registration`). `source`: the
    ledger's path, for the messages."""
    missing = [column for column in COLUMNS if column != "digest" and column not in OPTIONAL and column not in table]
    if missing:
        raise SnapshotError(f"{source}: the ledger has no column {', '.join(missing)}: it was built by older code; rebuild it "
                            f"(snakemake {study} --forcerun write_{study}_ledger) and snapshot again")
    registered = table["registered"].astype(bool)
    texts: dict[str, str | None] = {}

    def lock(commit: str) -> str | None:
        if commit not in texts:
            texts[commit] = locks(commit)
        return texts[commit]

    locked = None
    if registered.any():
        text = lock(build_commit)
        if text is None:
            raise SnapshotError(f"{source}: git has no {LOCKS_SHOWN} at {build_commit[:12]}, the commit the ledger was built "
                                "from; snapshot in the repository (and history) that built it")
        locked = read_lock(text)
    rows = []
    for row in table.to_dict("records"):
        digest = ""
        if row["registered"]:
            key = f"{run_prefix}{study}.{row['claim']}"
            if key not in locked:
                raise SnapshotError(f"{source}: claim {row['claim']} is marked registered, but no {LOCKS_SHOWN} at "
                                    f"{build_commit[:12]} has a line {key}: the ledger does not belong to this repository's history")
            digest = locked[key]
            defining = lock(str(row["defined_in"]))
            carried = registration is not None and registration(build_commit, f"{key} {digest}") == str(row["defined_in"])
            if not carried and (defining is None or read_lock(defining).get(key) != digest):
                raise SnapshotError(f"{source}: claim {row['claim']} names {row['defined_in']} as the commit that registered it, "
                                    f"but no {LOCKS_SHOWN} there holds {key} {digest}")
        rows.append({column: _cell(column, digest if column == "digest" else row[column]) for column in snapshot_columns(table)})
    return rows


def snapshot_text(path: Path, locks: LockAt, allow_unregistered: bool = False, shown_as: str | None = None,
                  registration: RegistrationAt | None = None) -> tuple[Path, str]:
    """(the snapshot's path relative to the repository, its text) for the ledger at `path`. `shown_as`: the
    ledger's path as the header names it (default: `path`). A ledger with a row that is not registered is a
    SnapshotError naming the row and the fix, unless `allow_unregistered`: then the header says how many rows
    are not registered, and that the snapshot is not citable."""
    source = shown_as or str(path)
    metadata, study, prefix = _ledger_facts(path)
    table = pd.read_parquet(path)
    commit = metadata.get("git_commit") or "unknown"
    unregistered = table[~table["registered"].astype(bool)] if "registered" in table else table
    if len(unregistered) and not allow_unregistered:
        first = unregistered.iloc[0]
        raise SnapshotError(
            f"{source}: {len(unregistered)} of {len(table)} claims are not registered (first: {first['claim']}: "
            f"{first.get('registration', 'no registration column')}). Build the ledger from a clean checkout of a commit after the "
            f"one that last changed its study's claims.lock (docs/claims.md, 'Pre-registration'), then snapshot it again; or pass "
            "--allow-unregistered to write a snapshot marked not citable")
    if commit == "unknown" and len(unregistered) < len(table):
        raise SnapshotError(f"{source}: the ledger's provenance names no commit, yet some rows are registered")
    rows = snapshot_rows(table, study, prefix, commit, locks, source, registration)
    registration = ALL_REGISTERED if not len(unregistered) else (
        f"NOT CITABLE: {len(unregistered)} of {len(table)} rows not registered (snapshot written with --allow-unregistered)")
    header = {
        "snapshot of": source, "ledger sha256": sha256_file(path), "run": metadata.get("run") or "unknown", "study": study,
        "built at": f"{commit} ({'uncommitted changes' if metadata.get('git_dirty') else 'clean'})",
        "registration": registration, "written by": WRITER,
    }
    buffer = io.StringIO()
    buffer.write("".join(f"# {key}: {header[key]}\n" for key in HEADER_KEYS))
    writer = csv.DictWriter(buffer, fieldnames=snapshot_columns(table), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return snapshot_path(prefix, study), buffer.getvalue()


def read_snapshot(path: Path) -> Snapshot:
    """A snapshot written by `snapshot_text`; its table has the columns the file has: `COLUMNS`, or fewer of
    `OPTIONAL` (a snapshot written before them: read with them absent)."""
    lines = Path(path).read_text().splitlines(keepends=True)
    header, start = {}, 0
    while start < len(lines) and lines[start].startswith("# "):
        key, _, value = lines[start][2:].rstrip("\n").partition(": ")
        header[key] = value
        start += 1
    rows = list(csv.DictReader(io.StringIO("".join(lines[start:]))))
    found = tuple(next(csv.reader(io.StringIO(lines[start]))) if start < len(lines) else ())
    known = found == tuple(column for column in COLUMNS if column in found) and set(COLUMNS) - set(OPTIONAL) <= set(found)
    if not known or set(header) != set(HEADER_KEYS):
        raise SnapshotError(f"{path}: not a ledger snapshot of this code's format (columns {', '.join(found) or 'none'}); "
                            f"write it again with {WRITER}")
    table = pd.DataFrame(rows, columns=list(found))
    for column in FLOATS:
        if column in table:
            table[column] = table[column].astype(float)
    table["n_values"] = table["n_values"].astype(int)
    table["registered"] = table["registered"].eq("true")
    return Snapshot(header, table)
