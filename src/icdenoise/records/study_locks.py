"""Pre-registration of a study: its claims lock lives with it, as ``claims.lock`` in its folder
(icdenoise.pipeline.registry.Study.own_lock), for a study of icdenoise.studies as for one outside the package,
in the line format of icdenoise.records.registration (``<study>.<claim> <digest>`` and
``<run>/<study>.<claim> <digest>``), and its registration is read from the git history of the repository that
holds the study (registration.lock_history: the newest commit that added the line to a claims lock, a move from one
lock file to another registering nothing).

A row is *registered* when its digest is the lock's and committed, and the ledger and every table were built from a
clean tree at the lock commit or a descendant of it. Where the study's repository is this package's (every study of
icdenoise.studies), those commits are the ledger's and the tables' own (their provenance). Where it is another
repository, whose commits the provenance does not record: this package's checkout must be clean as well, the study's
repository must be clean with its HEAD at the lock commit or a descendant of it when the ledger is built, and no table
file may be older than the lock commit. A study in no git repository has no registered row.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from icdenoise.records.artifacts import SOURCE
from icdenoise.records.provenance import training_devices
from icdenoise.records.registration import (_is_ancestor, build_reasons, is_commit, lock_history, order_reasons, read_lock,
                                            registered_in, repository, row)


def _git(folder: Path, *arguments: str) -> str | None:
    try:
        return subprocess.run(["git", "-C", str(folder), *arguments], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None


def shown(lock: Path, repo: Path | None) -> str:
    """The lock's path as a ledger row names it: relative to its repository, else absolute."""
    lock = lock.resolve()
    return lock.relative_to(repo).as_posix() if repo and lock.is_relative_to(repo) else str(lock)


def _defined_in(lock: Path, repo: Path | None, digests: dict[str, str]) -> dict[str, str]:
    """claim id → the commit that registered its digest in the study's lock (registration.registered_in), or why none
    did."""
    name = shown(lock, repo)
    locked = read_lock(lock.read_text()) if lock.is_file() else None
    history = lock_history(repo) if repo is not None and locked is not None else None
    how = ("`python scripts/lock_claims.py` (with `--configfile <its config file>` for a study that config/config.yaml "
           "does not name)")
    found = {}
    for key, digest in digests.items():
        claim_id = key.rsplit("/", 1)[-1].split(".", 1)[1]
        if locked is None:
            found[claim_id] = f"not pre-registered (no {name}: write it with {how} and commit it on its own)"
        elif locked.get(key) != digest:
            found[claim_id] = (f"not pre-registered (differs from {name}: lock the definitions you mean with {how} and "
                               "commit it before building)")
        elif repo is None:
            found[claim_id] = (f"not registered ({name} is in no git repository: put the study in one and commit its "
                               "claims.lock on its own, before building)")
        else:
            found[claim_id] = registered_in(history or [], f"{key} {digest}") or f"uncommitted ({name} is not committed)"
    return found


def study_registration(lock: Path, digests: dict[str, str], build: dict, tables: dict[str, dict],
                       project: Path = SOURCE, workflow: Path | None = None) -> dict[str, dict]:
    """claim id → its ledger row's registration (registration.row: ``defined_in``, ``built_from``, ``registered``,
    ``registration``), read from the study's own lock `lock` (the module docstring's rules). build: the ledger job's git state
    (icdenoise.records.artifacts.git_state, read in `project`, this package's checkout); tables: each table's path → its
    provenance (git_commit, git_dirty); workflow: the workflow's folder (registration.build_reasons)."""
    repo = repository(lock.parent)
    same = repo is not None and repo == repository(project)
    common = build_reasons(build, tables, workflow)
    devices = training_devices(tables)
    if repo is not None and not same and _git(repo, "status", "--porcelain", "--untracked-files=no"):
        common.append(f"the study's repository {repo.name} has uncommitted changes")
    head = (_git(repo, "rev-parse", "HEAD") or "").strip() if repo is not None and not same else ""
    rows = {}
    for claim_id, commit in _defined_in(lock, repo, digests).items():
        reasons = list(common)
        if not is_commit(commit):
            reasons.insert(0, commit)
        elif not common and same:
            reasons += order_reasons(repo, commit, build, tables)
        elif not common:
            reasons += _other_repository_reasons(repo, commit, head, tables)
        rows[claim_id] = row(commit, build, reasons, devices)
    return rows


def _other_repository_reasons(repo: Path, commit: str, head: str, tables: dict[str, dict]) -> list[str]:
    """Why a claim registered in `commit` of the study's own repository `repo` (not this package's) is not registered:
    the repository's `head` is neither it nor a descendant of it, or a table file is older than it."""
    reasons = []
    if not _is_ancestor(repo, commit, head):
        reasons.append(f"the study's repository was at {head[:7]}, before its registration in {commit}")
    locked_at = int((_git(repo, "show", "-s", "--format=%ct", commit) or "0").strip() or 0)
    early = sorted(path for path in tables if os.stat(path).st_mtime < locked_at)
    if early:
        reasons.append(f"{len(early)} of its tables were written before its registration in {commit} ({Path(early[0]).name}, ...)")
    return reasons
