"""The git state every Parquet file records: the commit, whether the tree is dirty, a hash of the diff
(real git commands, so an integration test)."""

import subprocess

import pytest

from icdenoise.records import artifacts

pytestmark = pytest.mark.integration


def test_git_state_flags_a_dirty_tree_and_hashes_its_diff(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    repo.mkdir()
    run = lambda *args: subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)  # noqa: E731
    run("init", "-q")
    run("-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "x")
    (repo / "f.txt").write_text("one\n")
    run("add", "f.txt")
    run("-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "-m", "f")
    monkeypatch.setattr(artifacts, "SOURCE", repo)
    artifacts.git_state.cache_clear()
    clean = artifacts.git_state()
    (repo / "f.txt").write_text("two\n")
    artifacts.git_state.cache_clear()
    dirty = artifacts.git_state()
    (repo / "f.txt").write_text("three\n")
    artifacts.git_state.cache_clear()
    other = artifacts.git_state()
    artifacts.git_state.cache_clear()
    assert clean["git_dirty"] is False and clean["git_diff_sha256"] is None
    assert dirty["git_dirty"] is True and dirty["git_commit"] == clean["git_commit"]
    assert dirty["git_diff_sha256"] != other["git_diff_sha256"]
