"""Pre-registration in git (real git commands, so an integration test): no commit of this repository
changes a claim's definition together with its study's results docs, each claim's ledger row finds the
commit of its definition, and both checks catch what they are for in a repository made for the test."""

import subprocess

import pytest

from icdenoise.pipeline.config import load_yaml, validate_config
from icdenoise.records.registration import UNCOMMITTED, UNREGISTERED, commits_with_files, defined_in, lock_text, premature_results

pytestmark = pytest.mark.integration


def _git(repo, *arguments):
    return subprocess.run(["git", "-C", str(repo), "-c", "user.email=a@b", "-c", "user.name=a", *arguments],
                          check=True, capture_output=True, text=True).stdout


def test_no_commit_changes_a_claim_and_its_results_together(repo):
    if _git(repo, "rev-parse", "--is-shallow-repository").strip() == "true":
        pytest.skip("a shallow clone holds no history to read; clone in full")
    studies = validate_config(load_yaml(repo / "config" / "config.yaml"), repo / "workflow" / "schemas")
    commits = commits_with_files(repo)
    assert commits, "config/claims.lock has no history"
    assert premature_results(commits, {name: study.docs for name, study in studies.items()}) == []


def test_the_history_check_and_the_ledgers_commit_lookup_on_a_repository_of_their_own(tmp_path):
    repo = tmp_path / "repo"
    (repo / "config").mkdir(parents=True)
    (repo / "docs").mkdir()
    _git(repo, "init", "-q")
    lock, doc = repo / "config" / "claims.lock", repo / "docs" / "toy.md"
    lock.write_text(lock_text({"toy.a": "1" * 16, "toy.b": "2" * 16}))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "definitions")
    first = _git(repo, "rev-parse", "--short", "HEAD").strip()
    doc.write_text("a: 0.3, pass\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "results")
    assert premature_results(commits_with_files(repo), {"toy": ("docs/toy.md",)}) == []
    lock.write_text(lock_text({"toy.a": "3" * 16, "toy.b": "2" * 16}))  # a changed, with its result, in one commit
    doc.write_text("a: 0.5, pass\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "both")
    second = _git(repo, "rev-parse", "--short", "HEAD").strip()
    problems = premature_results(commits_with_files(repo), {"toy": ("docs/toy.md",)})
    assert len(problems) == 1 and problems[0].startswith(f"commit {second} changes toy claim")
    found = defined_in(repo, "toy", {"toy.a": "3" * 16, "toy.b": "2" * 16, "toy.c": "4" * 16})
    assert found == {"a": second, "b": first, "c": UNREGISTERED}
    lock.write_text(lock_text({"toy.a": "3" * 16, "toy.b": "5" * 16}))  # b changed, not committed
    assert defined_in(repo, "toy", {"toy.b": "5" * 16}) == {"b": UNCOMMITTED}


def test_a_row_is_registered_only_at_or_after_its_lock_commit_from_a_clean_tree_and_fresh_tables(tmp_path):
    from icdenoise.records.registration import REGISTERED, registration

    repo = tmp_path / "repo"
    (repo / "config").mkdir(parents=True)
    _git(repo, "init", "-q")
    (repo / "notes.md").write_text("before\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "before the lock")
    early = _git(repo, "rev-parse", "HEAD").strip()
    (repo / "config" / "claims.lock").write_text(lock_text({"toy.a": "1" * 16}))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "the lock, on its own")
    locked = _git(repo, "rev-parse", "HEAD").strip()
    (repo / "notes.md").write_text("after\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "after the lock")
    later = _git(repo, "rev-parse", "HEAD").strip()
    clean = lambda commit: {"git_commit": commit, "git_dirty": False}  # noqa: E731
    digests = {"toy.a": "1" * 16}

    row = registration(repo, "toy", digests, clean(later), {"t.parquet": clean(locked)})["a"]
    assert row["registered"] and row["registration"] == REGISTERED and row["defined_in"] == locked[:7]
    assert row["built_from"] == f"{later[:7]} (clean)"
    at_the_lock = registration(repo, "toy", digests, clean(locked), {"t.parquet": clean(locked)})["a"]
    assert at_the_lock["registered"] and at_the_lock["defined_in"] == locked[:7]  # built at the lock commit itself
    before = registration(repo, "toy", digests, clean(early), {"t.parquet": clean(early)})["a"]
    assert not before["registered"] and "before its registration" in before["registration"]
    dirty = registration(repo, "toy", digests, {"git_commit": later, "git_dirty": True}, {"t.parquet": clean(later)})["a"]
    assert not dirty["registered"] and "uncommitted changes" in dirty["registration"]
    stale = registration(repo, "toy", digests, clean(later), {"t.parquet": clean(early)})["a"]
    assert not stale["registered"] and "computed before its registration" in stale["registration"]
    other = registration(repo, "toy", {"toy.a": "2" * 16}, clean(later), {"t.parquet": clean(later)})["a"]
    assert not other["registered"] and UNREGISTERED in other["registration"]
    outside = registration(repo, "toy", digests, {"git_commit": "unknown", "git_dirty": None}, {})["a"]
    assert not outside["registered"] and "outside a git checkout" in outside["registration"]
