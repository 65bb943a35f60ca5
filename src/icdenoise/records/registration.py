"""Pre-registration of claims: each claim's definition as a digest, the lock file that fixes them in git,
the commit that last changed each, and the rule that no commit changes a claim and its results together.

A claim's definition is what its verdict depends on: where and what it states, the source of its
measure and inconclusive rules (with every function of the same module they call, and the values they
close over), its config block (source value, comparison, tolerance and why, inconclusive rules, names)
and the study settings it is measured at (``icdenoise.pipeline.registry.Study.claim_settings``). Its
digest is a line ``<study>.<claim> <digest>`` of ``config/claims.lock``, computed on config/config.yaml,
and ``<run>/<study>.<claim> <digest>`` for each shipped config that names a run of its own (merged over
config/config.yaml, as Snakemake merges it). The lock is committed on its own, before the commit that
records the results (docs/claims.md).
"""

from __future__ import annotations

import hashlib
import inspect
import json
import subprocess
import textwrap
import types
from pathlib import Path

from icdenoise.records.claims import Claim

LOCK = Path("config") / "claims.lock"
HEADER = (
    "# Pre-registered claims: `<study>.<claim> <digest>` of each claim's definition (statement, measure and rule code,\n"
    "# config block, and the study settings its verdict depends on) on config/config.yaml; `<run>/<study>.<claim>` on\n"
    "# each other config/*.yaml that names its own run. Written by\n"
    "# `python scripts/lock_claims.py`; commit it on its own, before the commit that records the results (docs/claims.md).\n"
)
UNREGISTERED = "not pre-registered (differs from config/claims.lock)"
UNCOMMITTED = "uncommitted (config/claims.lock is not committed)"


def _names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names |= _names(constant)
    return names


def code_text(function, seen: set | None = None) -> str:
    """The source of `function`, the values it closes over, and the source of every function of its own
    module that it names, recursively."""
    seen = set() if seen is None else seen
    if function in seen:
        return ""
    seen.add(function)
    parts = [textwrap.dedent(inspect.getsource(function))]
    for cell in function.__closure__ or ():
        value = cell.cell_contents
        parts.append(code_text(value, seen) if inspect.isfunction(value) else repr(value))
    for name in sorted(_names(function.__code__)):
        value = function.__globals__.get(name)
        if inspect.isfunction(value) and value.__module__ == function.__module__:
            parts.append(code_text(value, seen))
    return "\n".join(parts)


def definition_digest(claim: Claim, spec: dict, settings: dict) -> str:
    """The digest of one claim's definition (16 hex digits of sha256)."""
    seen: set = set()
    document = {
        "location": claim.location, "statement": claim.statement, "needs": [list(need) for need in claim.needs],
        "measure": code_text(claim.measure, seen),
        "rules": {name: code_text(rule, seen) for name, rule in sorted(claim.rules.items())},
        "spec": spec, "settings": settings,
    }
    return hashlib.sha256(json.dumps(document, sort_keys=True, default=repr).encode()).hexdigest()[:16]


def study_digests(study: str, registry: dict[str, Claim], claims_config: dict, settings: dict, prefix: str = "") -> dict[str, str]:
    """`<prefix><study>.<claim>` → digest, for each configured claim, in registry order."""
    return {f"{prefix}{study}.{claim_id}": definition_digest(claim, claims_config[claim_id], settings)
            for claim_id, claim in registry.items() if claim_id in claims_config}


def key_study(key: str) -> str:
    """The study of a lock key `[<run>/]<study>.<claim>`."""
    return key.rsplit("/", 1)[-1].split(".", 1)[0]


def lock_text(digests: dict[str, str]) -> str:
    return HEADER + "".join(f"{key} {digest}\n" for key, digest in digests.items())


def read_lock(text: str) -> dict[str, str]:
    """The lock file's `<study>.<claim>` → digest."""
    return dict(line.split() for line in text.splitlines() if line.strip() and not line.startswith("#"))


def _git(root: Path, *arguments: str) -> str | None:
    try:
        return subprocess.run(["git", *arguments], cwd=root, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None


def lock_history(root: Path) -> list[tuple[str, list[str], list[str]]] | None:
    """Each commit that changed the lock, newest first: (short hash, lines it added, lines it removed).
    None where there is no git history."""
    log = _git(root, "log", "--format=commit %h", "-p", "--unified=0", "--", str(LOCK))
    if log is None:
        return None
    commits: list[tuple[str, list[str], list[str]]] = []
    for line in log.splitlines():
        if line.startswith("commit "):
            commits.append((line.split()[1], [], []))
        elif commits and line.startswith("+") and not line.startswith("+++"):
            commits[-1][1].append(line[1:])
        elif commits and line.startswith("-") and not line.startswith("---"):
            commits[-1][2].append(line[1:])
    return commits


def defined_in(root: Path, study: str, digests: dict[str, str]) -> dict[str, str]:
    """claim id → the commit that last changed its committed definition, or why there is none: its digest
    differs from the lock's (a config or code that is not the pre-registered one), or the lock line is
    not committed, or there is no git history."""
    lock_path = root / LOCK
    locked = read_lock(lock_path.read_text()) if lock_path.exists() else {}
    history = lock_history(root)
    found = {}
    for key, digest in digests.items():
        claim_id = key.rsplit("/", 1)[-1].split(".", 1)[1]
        if locked.get(key) != digest:
            found[claim_id] = UNREGISTERED
        elif history is None:
            found[claim_id] = "unknown (no git history)"
        else:
            found[claim_id] = next((commit for commit, added, _ in history if f"{key} {digest}" in added), UNCOMMITTED)
    return found


def premature_results(commits: list[tuple[str, list[str], list[str], list[str]]], results_docs: dict[str, tuple[str, ...]]) -> list[str]:
    """The commits that change a claim's definition and its study's results docs together.

    commits: (hash, lock lines added, lock lines removed, files changed); results_docs: study → the docs
    that quote its results."""
    problems = []
    for commit, added, removed, files in commits:
        studies = sorted({key_study(line.split()[0]) for line in added + removed if line.strip() and not line.startswith("#")})
        for study in studies:
            touched = sorted(set(files) & set(results_docs.get(study, ())))
            if touched:
                problems.append(f"commit {commit} changes {study} claim definitions in config/claims.lock and its results in "
                                f"{', '.join(touched)}: commit the definitions first, then the results")
    return problems


def commits_with_files(root: Path) -> list[tuple[str, list[str], list[str], list[str]]]:
    """For premature_results: every commit that changed the lock, with the files it changed."""
    commits = []
    for commit, added, removed in lock_history(root) or []:
        files = (_git(root, "show", "--format=", "--name-only", commit) or "").split()
        commits.append((commit, added, removed, files))
    return commits
