"""Pre-registration in git (real git commands, so an integration test): no commit of this repository
changes a claim's definition together with its study's results docs, each claim's ledger row finds the
commit of its definition in its study's own lock, a lock moved from one file to another registers nothing, and
the checks catch what they are for in a repository made for the test."""

import subprocess

import pytest

from icdenoise.pipeline.config import load_yaml, validate_config
from icdenoise.records.registration import commits_with_files, lock_text, premature_results
from icdenoise.records.study_locks import study_registration

pytestmark = pytest.mark.integration


def _git(repo, *arguments):
    return subprocess.run(["git", "-C", str(repo), "-c", "user.email=a@b", "-c", "user.name=a", *arguments],
                          check=True, capture_output=True, text=True).stdout


def test_no_commit_changes_a_claim_and_its_results_together(repo):
    if _git(repo, "rev-parse", "--is-shallow-repository").strip() == "true":
        pytest.skip("a shallow clone holds no history to read; clone in full")
    studies = validate_config(load_yaml(repo / "config" / "config.yaml"), repo / "workflow" / "schemas")
    commits = commits_with_files(repo)
    assert commits, "the claims locks have no history"
    assert premature_results(commits, {name: study.docs for name, study in studies.items()}) == []


def _head(repo):
    return _git(repo, "rev-parse", "HEAD").strip()


def _commit(repo, message):
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", message)
    return _head(repo)


def _defined_in(repo, digests):
    """claim → the `defined_in` of its row, read from the toy study's own lock, toy/claims.lock."""
    clean = {"git_commit": _head(repo), "git_dirty": False}
    rows = study_registration(repo / "toy" / "claims.lock", digests, clean, {}, project=repo)
    return {claim: row["defined_in"] for claim, row in rows.items()}


def test_the_history_check_and_the_ledgers_commit_lookup_on_a_repository_of_their_own(tmp_path):
    repo = tmp_path / "repo"
    (repo / "toy").mkdir(parents=True)
    (repo / "docs").mkdir()
    _git(repo, "init", "-q")
    lock, doc = repo / "toy" / "claims.lock", repo / "docs" / "toy.md"
    lock.write_text(lock_text({"toy.a": "1" * 16, "toy.b": "2" * 16}))
    first = _commit(repo, "definitions")[:7]
    doc.write_text("a: 0.3, pass\n")
    _commit(repo, "results")
    assert premature_results(commits_with_files(repo), {"toy": ("docs/toy.md",)}) == []
    lock.write_text(lock_text({"toy.a": "3" * 16, "toy.b": "2" * 16}))  # a changed, with its result, in one commit
    doc.write_text("a: 0.5, pass\n")
    second = _commit(repo, "both")[:7]
    problems = premature_results(commits_with_files(repo), {"toy": ("docs/toy.md",)})
    assert len(problems) == 1 and problems[0].startswith(f"commit {second} changes toy claim")
    found = _defined_in(repo, {"toy.a": "3" * 16, "toy.b": "2" * 16, "toy.c": "4" * 16})
    assert (found["a"], found["b"]) == (second, first) and found["c"].startswith("not pre-registered (differs from toy/claims.lock")
    lock.write_text(lock_text({"toy.a": "3" * 16, "toy.b": "5" * 16}))  # b changed, not committed
    assert _defined_in(repo, {"toy.b": "5" * 16}) == {"b": "uncommitted (toy/claims.lock is not committed)"}
    lock.write_text(lock_text({"toy.a": "3" * 16}))  # b removed in a commit, then written back as it was, uncommitted
    _commit(repo, "b withdrawn")
    lock.write_text(lock_text({"toy.a": "3" * 16, "toy.b": "2" * 16}))
    assert _defined_in(repo, {"toy.b": "2" * 16}) == {"b": "uncommitted (toy/claims.lock is not committed)"}


def test_moving_a_lock_into_the_studys_folder_registers_nothing(tmp_path):
    """Lines moved from one lock file to another (as config/claims.lock moved into each study's folder) keep the commit
    that registered them, and a move beside a results doc is no definition changed with its results."""
    repo = tmp_path / "repo"
    (repo / "config").mkdir(parents=True)
    (repo / "toy").mkdir()
    (repo / "docs").mkdir()
    _git(repo, "init", "-q")
    digests = {"toy.a": "1" * 16, "other.b": "2" * 16}
    (repo / "config" / "claims.lock").write_text(lock_text(digests))
    locked = _commit(repo, "the lock, on its own")
    (repo / "docs" / "toy.md").write_text("a: 0.3, pass\n")
    results = _commit(repo, "results")
    (repo / "config" / "claims.lock").unlink()
    (repo / "toy" / "claims.lock").write_text(lock_text({"toy.a": "1" * 16}))
    (repo / "docs" / "toy.md").write_text("a: 0.3, pass (moved)\n")
    moved = _commit(repo, "toy's lines into its folder; other's dropped")
    assert _defined_in(repo, {"toy.a": "1" * 16}) == {"a": locked[:7]}
    row = study_registration(repo / "toy" / "claims.lock", {"toy.a": "1" * 16}, {"git_commit": moved, "git_dirty": False},
                             {"t.parquet": {"git_commit": results, "git_dirty": False}}, project=repo)["a"]
    assert row["registered"], row["registration"]  # a table computed before the move stays registered
    assert [commit for commit, _, removed, _ in commits_with_files(repo) if removed] == [moved[:7]]  # other.b: removed
    assert premature_results(commits_with_files(repo), {"toy": ("docs/toy.md",)}) == []


def test_a_row_is_registered_only_at_or_after_its_lock_commit_from_a_clean_tree_and_fresh_tables(tmp_path):
    from icdenoise.records.registration import REGISTERED

    repo = tmp_path / "repo"
    (repo / "toy").mkdir(parents=True)
    _git(repo, "init", "-q")
    (repo / "notes.md").write_text("before\n")
    early = _commit(repo, "before the lock")
    lock = repo / "toy" / "claims.lock"
    lock.write_text(lock_text({"toy.a": "1" * 16}))
    locked = _commit(repo, "the lock, on its own")
    (repo / "notes.md").write_text("after\n")
    later = _commit(repo, "after the lock")
    clean = lambda commit: {"git_commit": commit, "git_dirty": False}  # noqa: E731
    digests = {"toy.a": "1" * 16}

    def registration(digests, build, tables):
        return study_registration(lock, digests, build, tables, project=repo)

    row = registration(digests, clean(later), {"t.parquet": clean(locked)})["a"]
    assert row["registered"] and row["registration"] == REGISTERED and row["defined_in"] == locked[:7]
    assert row["built_from"] == f"{later[:7]} (clean)"
    at_the_lock = registration(digests, clean(locked), {"t.parquet": clean(locked)})["a"]
    assert at_the_lock["registered"] and at_the_lock["defined_in"] == locked[:7]  # built at the lock commit itself
    before = registration(digests, clean(early), {"t.parquet": clean(early)})["a"]
    assert not before["registered"] and "before its registration" in before["registration"]
    dirty = registration(digests, {"git_commit": later, "git_dirty": True}, {"t.parquet": clean(later)})["a"]
    assert not dirty["registered"] and "uncommitted changes" in dirty["registration"]
    stale = registration(digests, clean(later), {"t.parquet": clean(early)})["a"]
    assert not stale["registered"] and "computed before its registration" in stale["registration"]
    other = registration({"toy.a": "2" * 16}, clean(later), {"t.parquet": clean(later)})["a"]
    assert not other["registered"] and "differs from toy/claims.lock" in other["registration"]
    outside = registration(digests, {"git_commit": "unknown", "git_dirty": None}, {})["a"]
    assert not outside["registered"] and "outside a git checkout" in outside["registration"]


def test_ancestry_is_answered_for_commits_and_asked_of_git_once_per_pair(tmp_path, monkeypatch):
    from icdenoise.records import registration

    _git(tmp_path, "init", "-q")
    (tmp_path / "notes.md").write_text("first\n")
    first = _commit(tmp_path, "first")
    (tmp_path / "notes.md").write_text("second\n")
    second = _commit(tmp_path, "second")
    asked = []
    run = registration.subprocess.run
    monkeypatch.setattr(registration.subprocess, "run", lambda *args, **kwargs: asked.append(args) or run(*args, **kwargs))
    for _ in range(3):
        assert registration._is_ancestor(tmp_path, first, second)
        assert registration._is_ancestor(tmp_path, second, second)
        assert not registration._is_ancestor(tmp_path, second, first)
    assert len(asked) == 3  # each pair once
    for _ in range(2):  # not a commit git knows: asked each time, never kept
        assert not registration._is_ancestor(tmp_path, first, "unknown")
        assert not registration._is_ancestor(tmp_path, first, "0" * 40)
    assert len(asked) == 7
