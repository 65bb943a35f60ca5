"""Pre-registration of claims: each claim's definition as a digest, the lock files that fix them in git,
the commit that registered each, whether a ledger row is registered, and the rule that no commit changes a
claim and its results together.

A claim's definition is what its verdict depends on: where and what it states, its measure and inconclusive
rules with every definition they reach (icdenoise.pipeline.definitions.claim_code), its config block (source
value, comparison, tolerance and why, inconclusive rules, names), the study settings it is measured at
(``icdenoise.pipeline.registry.Study.claim_settings``: the science blocks, never the ``execution`` block of how
jobs run), and what the study's jobs run with the wiring that hands them their tables
(icdenoise.pipeline.definitions.study_code). Code enters as syntax: docstrings, comments and layout never change
a digest, and a definition that no job of the study reaches leaves it alone. Its digest is a line
``<study>.<claim> <digest>`` of its study's own lock, ``claims.lock`` in the study's folder
(``icdenoise.pipeline.registry.Study.own_lock``), computed on config/config.yaml, and
``<run>/<study>.<claim> <digest>`` for each shipped config that names a run of its own (merged over
config/config.yaml, as Snakemake merges it). The lock is committed on its own, before or with no results
(docs/claims.md). Every study, in this package or outside it, is registered the same way
(icdenoise.records.study_locks).

The commit that registered a line is the newest commit that added it to one of the repository's claims locks
(`lock_history`, `registered_in`); a commit that moves a line from one lock file to another, adding and removing
it at once, registers nothing, so moving a study's folder (or its lock) re-registers none of its claims.

A digest names the method that computed it: ``2:<hex>`` is method 2 (the wiring read without figure rules and rule
docstrings, icdenoise.pipeline.definitions.rules_text), a bare ``<hex>`` method 1. Method 2 reads a part of what
method 1 read, so a definition method 1 left unchanged is unchanged under method 2. The commit that brought method 2
kept each method-1 line beside its method-2 line, both checked current by the lock's test there; a line of a newer
method added beside the untouched line of the method before it carries that line's registration
(`registered_in`). A new method never re-registers a claim whose definition it finds unchanged, and a later change
of the definition registers it anew.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path
from typing import Callable

from icdenoise.records.claims import Claim


LOCK_NAME = "claims.lock"  # a study's claims lock, in its folder (icdenoise.pipeline.registry.Study.own_lock)
LOCKS = f":(glob)**/{LOCK_NAME}"  # the git pathspec of every claims lock of a repository
HEADER = (
    "# Pre-registered claims: `<study>.<claim> <digest>` of each claim's definition (statement, measure and rule code,\n"
    "# config block, the science settings its verdict depends on, and the code of the study's jobs and the wiring that\n"
    "# hands them their tables; `2:<hex>`: digest method 2, icdenoise.records.registration) on config/config.yaml;\n"
    "# `<run>/<study>.<claim>` on\n"
    "# each other config/*.yaml that names its own run. Written by\n"
    "# `python scripts/lock_claims.py`; commit it on its own, before the commit that records the results (docs/claims.md).\n"
)


ClaimCode = Callable[[Claim], str]  # a claim → its own code as syntax (icdenoise.pipeline.definitions.claim_code)
METHOD = 2  # the digest method of new lock lines: `<METHOD>:<hex>` (the module docstring)


def method_of(digest: str) -> int:
    """The method of a lock line's digest: ``<method>:<hex>``, or 1 for a bare ``<hex>``."""
    return int(digest.split(":", 1)[0]) if ":" in digest else 1


def definition_digest(claim: Claim, spec: dict, settings: dict, code: str, own_code: ClaimCode, method: int = METHOD) -> str:
    """The digest of one claim's definition (16 hex digits of sha256, after `<method>:` from method 2); `code`: the
    digest of its study's jobs' code (icdenoise.pipeline.definitions.study_code, read by the same method); `own_code`:
    gives its measure's and rules' code."""
    document = {
        "location": claim.location, "statement": claim.statement, "needs": [list(need) for need in claim.needs],
        "own_code": own_code(claim), "spec": spec, "settings": settings, "code": code,
    }
    digest = hashlib.sha256(json.dumps(document, sort_keys=True, default=repr).encode()).hexdigest()[:16]
    return digest if method == 1 else f"{method}:{digest}"


def study_digests(study: str, registry: dict[str, Claim], claims_config: dict, settings: dict, prefix: str,
                  code: str, own_code: ClaimCode, method: int = METHOD) -> dict[str, str]:
    """`<prefix><study>.<claim>` → digest, for each configured claim, in registry order; `code`, `own_code` and
    `method` as in `definition_digest`."""
    return {f"{prefix}{study}.{claim_id}": definition_digest(claim, claims_config[claim_id], settings, code, own_code, method)
            for claim_id, claim in registry.items() if claim_id in claims_config}


def key_study(key: str) -> str:
    """The study of a lock key `[<run>/]<study>.<claim>`."""
    return key.rsplit("/", 1)[-1].split(".", 1)[0]


def lock_text(digests: dict[str, str], earlier: dict[str, str] | None = None) -> str:
    """A lock file: its lines `digests`; `earlier`: the same claims' lines of the method before, kept above them at
    the commit that brings a new method, so that each new line carries their registration (`registered_in`)."""
    kept = "" if not earlier else (
        "# The lines of the method before, each beside its line of the current method below, at the commit that brought it:\n"
        + "".join(f"{key} {digest}\n" for key, digest in earlier.items()) + "# The current method:\n")
    return HEADER + kept + "".join(f"{key} {digest}\n" for key, digest in digests.items())


def read_lock(text: str, method: int | None = None) -> dict[str, str]:
    """The lock file's `<study>.<claim>` → digest: of the newest method where a claim has lines of two, or of `method`."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        if line.strip() and not line.startswith("#"):
            key, digest = line.split()
            if method is not None and method_of(digest) != method:
                continue
            if key not in found or method_of(digest) > method_of(found[key]):
                found[key] = digest
    return found


def _git(root: Path, *arguments: str) -> str | None:
    try:
        return subprocess.run(["git", "-C", str(root), *arguments], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None


def lock_history(root: Path, revision: str = "HEAD") -> list[tuple[str, list[str], list[str]]] | None:
    """Each commit up to `revision` that changed a claims lock of the repository at `root` (`LOCKS`: any file named
    claims.lock), newest first: (short hash, lines it added, lines it removed), less the lines it both added and
    removed (moved from one lock file to another: no definition changed). None where there is no git history."""
    log = _git(root, "log", "--format=commit %h", "-p", "--unified=0", revision, "--", LOCKS)
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
    moved = [set(added) & set(removed) for _, added, removed in commits]
    return [(commit, [line for line in added if line not in both], [line for line in removed if line not in both])
            for (commit, added, removed), both in zip(commits, moved)]


def registered_in(history: list[tuple[str, list[str], list[str]]], line: str) -> str | None:
    """The commit of `history` (`lock_history`) that registered the lock line `line` (``<key> <digest>``): the newest
    that added it, unless a newer one removed it (then, as where none added it, the line is not committed: None); or,
    where that commit added it beside the untouched line of the method before, the commit that registered that line
    (`_carried`)."""
    for index, (commit, added, removed) in enumerate(history):
        if line in added:
            return _carried(history, index, line) or commit
        if line in removed:
            return None
    return None


def _carried(history: list[tuple[str, list[str], list[str]]], index: int, line: str) -> str | None:
    """Where `line`, added by `history[index]`, takes its registration from: the registration of its claim's line of the
    method before, where that line stood in the lock there and the commit left it untouched (the lock's test checked
    both methods current at that commit: the definition is the one that line registered). None otherwise."""
    key, digest = line.split()
    method = method_of(digest)

    def before(candidate: str) -> bool:
        parts = candidate.split()
        return (len(parts) == 2 and not candidate.startswith("#") and parts[0] == key
                and method_of(parts[1]) == method - 1)

    _, added, removed = history[index]
    if method == 1 or any(map(before, added + removed)):
        return None
    for position in range(index + 1, len(history)):
        _, added, removed = history[position]
        earlier = [candidate for candidate in added if before(candidate)]
        if earlier:
            return registered_in(history[position:], earlier[0])
        if any(map(before, removed)):
            return None
    return None


def locks_at(root: Path, commit: str) -> str | None:
    """The lines of every claims lock (`LOCKS`) of the repository at `root` at `commit`, as one lock text; None where
    git has no such commit or no lock there."""
    names = [name for name in (_git(root, "ls-tree", "-r", "--name-only", commit) or "").splitlines()
             if name.rsplit("/", 1)[-1] == LOCK_NAME]
    texts = [_git(root, "show", f"{commit}:{name}") for name in names]
    return "".join(text for text in texts if text is not None) or None


def tracked_locks(root: Path) -> dict[str, str]:
    """The lines `<key>` → digest of every claims lock that git tracks in the working tree at `root`, as they are there."""
    found: dict[str, str] = {}
    for name in (_git(root, "ls-files", "--", LOCKS) or "").splitlines():
        if (root / name).is_file():
            found.update(read_lock((root / name).read_text()))
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
                problems.append(f"commit {commit} changes {study} claim definitions in its claims lock and its results in "
                                f"{', '.join(touched)}: commit the definitions first, then the results")
    return problems


def commits_with_files(root: Path) -> list[tuple[str, list[str], list[str], list[str]]]:
    """For premature_results: every commit that changed a claims lock (`lock_history`), with the files it changed."""
    commits = []
    for commit, added, removed in lock_history(root) or []:
        files = (_git(root, "show", "--format=", "--name-only", commit) or "").split()
        commits.append((commit, added, removed, files))
    return commits


REGISTERED = "registered"
NOT_REGISTERED = "not registered"


def is_commit(text: str) -> bool:
    """Whether `defined_in` found a commit (a hex hash), not a reason why there is none."""
    return bool(text) and all(character in "0123456789abcdef" for character in text)


_ANCESTRY: dict[tuple[Path, str, str], bool] = {}  # git's answers about two commits it has, which never change


def _is_ancestor(root: Path, ancestor: str, descendant: str) -> bool:
    """Whether commit `ancestor` is `descendant` or an ancestor of it, in the repository at `root`. A ledger asks it
    for each claim and each of its tables, mostly of the same few commits: where git knows both (it answers yes or
    no, not an error) and both are hashes, the answer is kept for the process."""
    key = (root, ancestor, descendant)
    if key in _ANCESTRY:
        return _ANCESTRY[key]
    try:
        answer = subprocess.run(["git", "merge-base", "--is-ancestor", ancestor, descendant], cwd=root, capture_output=True)
    except OSError:
        return False
    if answer.returncode in (0, 1) and is_commit(ancestor) and is_commit(descendant):
        _ANCESTRY[key] = answer.returncode == 0
    return answer.returncode == 0


def built_from(state: dict, devices: dict[str, int] | None = None) -> str:
    """A build's commit and tree state, as a ledger row shows it: `<short hash> (clean)`, `(uncommitted changes)`,
    or why there is none; then, where `devices` (device → jobs, provenance.training_devices) names any, the devices
    its training jobs ran on: `abc1234 (clean); trained on cuda (NVIDIA H100 80GB HBM3): 6 jobs`. `state`:
    icdenoise.records.artifacts.git_state() or an artifact's provenance."""
    commit = state.get("git_commit") or "unknown"
    text = "unknown (no git checkout)" if commit == "unknown" else f"{commit[:7]} ({'uncommitted changes' if state.get('git_dirty') else 'clean'})"
    if devices:
        text += "; trained on " + ", ".join(f"{device}: {jobs} job{'' if jobs == 1 else 's'}" for device, jobs in devices.items())
    return text


def repository(folder: Path) -> Path | None:
    """The top folder of the git repository holding `folder`, or None."""
    top = _git(Path(folder), "rev-parse", "--show-toplevel")
    return Path(top.strip()).resolve() if top else None


def build_reasons(build: dict, tables: dict[str, dict], workflow: Path | None = None) -> list[str]:
    """Why no row of a ledger built in `build`'s state from `tables` (path → provenance) can be registered, whatever
    its claim: built outside git or from uncommitted changes, a table built so, or (`workflow`: the workflow's
    folder) the package imported from another checkout than the workflow's, whose state the provenance does not
    record."""
    reasons = []
    if build.get("git_commit", "unknown") == "unknown":
        reasons.append("the ledger was built outside a git checkout")
    elif build.get("git_dirty"):
        reasons.append("the ledger was built from a tree with uncommitted changes")
    dirty = sorted(path for path, state in tables.items() if state.get("git_dirty") or state.get("git_commit", "unknown") == "unknown")
    if dirty:
        reasons.append(f"{len(dirty)} of its tables were built from uncommitted code or outside git ({Path(dirty[0]).name}, ...)")
    if workflow is not None:
        package, checkout = repository(Path(__file__).parent), repository(workflow)
        if package != checkout:
            reasons.append(f"the package was imported from {package or 'outside git'}, not from the workflow's checkout "
                           f"{checkout or '(none)'}: install it from there (pip install -e .)")
    return reasons


def order_reasons(root: Path, commit: str, build: dict, tables: dict[str, dict]) -> list[str]:
    """Why a claim registered in `commit` is not registered in a ledger built in `build`'s state from `tables`: the
    ledger was not built at `commit` or a descendant of it, or a table was computed before it (`root`: the
    repository of both)."""
    reasons = []
    if not _is_ancestor(root, commit, build["git_commit"]):
        reasons.append(f"the ledger was built at {build['git_commit'][:7]}, before its registration in {commit}")
    early = sorted(path for path, state in tables.items() if not _is_ancestor(root, commit, state["git_commit"]))
    if early:
        reasons.append(f"{len(early)} of its tables were computed before its registration in {commit} ({Path(early[0]).name}, ...)")
    return reasons


def row(commit: str, build: dict, reasons: list[str], devices: dict[str, int] | None = None) -> dict:
    """A ledger row's registration columns: ``defined_in``, ``built_from`` (with the `devices` its tables were trained
    on), ``registered`` and ``registration``."""
    return {"defined_in": commit, "built_from": built_from(build, devices), "registered": not reasons,
            "registration": REGISTERED if not reasons else f"{NOT_REGISTERED}: {'; '.join(reasons)}"}
