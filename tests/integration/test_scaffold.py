"""A study written by `python -m icdenoise.scaffold` and a study's own claims lock, with real Snakemake runs and
real git repositories: the scaffolded outside study builds its figure, its ledger and leaderboard rows on both of
its cases in its own run; the scaffold's template study, locked in its own folder in a git repository made here,
gives registered rows after a clean commit, and the built-in studies' locks are left as they were."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from runner import SNAKEMAKE, copy_workflow, planned_jobs, smoke_target

from icdenoise.scaffold import NAME, TEMPLATE

pytestmark = pytest.mark.integration


def with_path(*folders: Path) -> dict:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, folders))}


def test_a_scaffolded_outside_study_plans_its_figure_ledger_and_leaderboard_rows_on_two_cases_in_its_own_run(repo, tmp_path):
    """What it writes is the template renamed (tests/unit/scaffold), and the template itself is built, locally and
    through SLURM (test_starter_study.py): here the copy is planned, as its own run, from the commands it prints."""
    outside = tmp_path / "mine"
    outside.mkdir()
    made = subprocess.run([sys.executable, "-m", "icdenoise.scaffold", "toy", "--outside", str(outside)], capture_output=True,
                          text=True, env=with_path(repo / "src"))
    assert made.returncode == 0, made.stderr
    assert f"--configfile config/smoke.yaml {outside / 'toy.yaml'}" in made.stdout and "lock_claims.py --configfile" in made.stdout
    again = subprocess.run([sys.executable, "-m", "icdenoise.scaffold", "toy", "--outside", str(outside)], capture_output=True,
                           text=True, env=with_path(repo / "src"))
    assert again.returncode == 2 and "already exists: choose another name" in again.stderr
    workdir = copy_workflow(repo, tmp_path / "workflow")
    plan = subprocess.run([SNAKEMAKE, "-n", "--cores", "2", "toy", "leaderboard", "--configfile", "config/smoke.yaml",
                           str(outside / "toy.yaml")], cwd=workdir, capture_output=True, text=True, timeout=900,
                          env=with_path(repo / "src", outside))
    assert plan.returncode == 0, plan.stderr[-4000:]
    jobs = planned_jobs(plan)
    outputs = {rule: [path for job, paths in jobs if job == rule for path in paths] for rule, _ in jobs}
    assert {"compute_toy", "plot_toy_noisy_query", "write_toy_ledger", "build_leaderboard"} <= outputs.keys()
    assert sorted(outputs["score_toy_denoisers"]) == [f"runs/toy/results/toy/leaderboard_scores/{case}.parquet"
                                                      for case in ("linear", "sphere")]
    assert "runs/toy/figures/toy/noisy_query.pdf" in outputs["plot_toy_noisy_query"]
    assert all(path.startswith("runs/toy/") for paths in outputs.values() for path in paths)  # not the smoke run's


def _git(folder: Path, *arguments: str) -> str:
    return subprocess.run(["git", "-C", str(folder), "-c", "user.email=a@b", "-c", "user.name=a", *arguments], check=True,
                          capture_output=True, text=True).stdout


def test_a_study_locked_in_its_own_folder_is_registered_after_a_clean_commit(repo, tmp_path):
    """The project and a copy of the template study in one git repository made here: the study's lock is written
    into its folder, committed on its own, and that very commit is built clean."""
    checkout = copy_workflow(repo, tmp_path / "checkout")
    for folder in ("src", "scripts"):
        shutil.copytree(repo / folder, checkout / folder, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(TEMPLATE / NAME, checkout / "example" / NAME, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(TEMPLATE / f"{NAME}.yaml", checkout / "example" / "config.yaml")
    project_locks = {path: path.read_bytes() for path in (checkout / "src").rglob("claims.lock")}
    assert len(project_locks) == 4  # one per built-in study, in its folder; none for the template
    (checkout / ".gitignore").write_text(".snakemake/\nruns/\n__pycache__/\n")
    _git(checkout, "init", "-q")
    _git(checkout, "add", "-A")
    _git(checkout, "commit", "-q", "-m", "the project and the study")
    environment = with_path(checkout / "src", checkout / "example")
    locked = subprocess.run([sys.executable, "scripts/lock_claims.py", "--configfile", "example/config.yaml"], cwd=checkout,
                            capture_output=True, text=True, env=environment)
    assert locked.returncode == 0, locked.stderr
    lock = checkout / "example" / NAME / "claims.lock"
    assert "smoke/starter.noisy_query_mse_is_noise_variance " in lock.read_text()
    assert {path: path.read_bytes() for path in (checkout / "src").rglob("claims.lock")} == project_locks
    assert _git(checkout, "status", "--porcelain") == "?? example/starter/claims.lock\n"
    _git(checkout, "add", "-A")
    _git(checkout, "commit", "-q", "-m", "the study's claims, on their own")
    lock_commit = _git(checkout, "rev-parse", "--short=7", "HEAD").strip()
    built = subprocess.run([SNAKEMAKE, "--cores", "2", NAME, "--configfile", "config/smoke.yaml", "example/config.yaml"],
                           cwd=checkout, capture_output=True, text=True, timeout=900, env=environment)
    assert built.returncode == 0, built.stderr[-4000:]
    ledger = pd.read_parquet(checkout / smoke_target("figures/starter/claims.parquet"))
    assert ledger["registered"].all(), ledger["registration"].tolist()
    assert list(ledger["defined_in"]) == [lock_commit]
    assert _git(checkout, "status", "--porcelain") == ""  # the built-in studies' locks untouched, nothing else changed


def test_a_study_in_another_repository_is_registered_only_from_its_clean_head_at_or_after_the_lock(tmp_path):
    from icdenoise.records.registration import lock_text
    from icdenoise.records.study_locks import study_registration

    study = tmp_path / "other" / "toy"
    study.mkdir(parents=True)
    lock, table = study / "claims.lock", tmp_path / "t.parquet"
    lock.write_text(lock_text({"toy.a": "1" * 16}))
    clean = {"git_commit": "f" * 40, "git_dirty": False}
    digests = {"toy.a": "1" * 16}
    table.write_text("")
    outside_git = study_registration(lock, digests, clean, {}, project=tmp_path)["a"]
    assert not outside_git["registered"] and "is in no git repository" in outside_git["registration"]
    _git(study.parent, "init", "-q")
    _git(study.parent, "add", "-A")
    _git(study.parent, "commit", "-q", "-m", "the lock")
    locked = _git(study.parent, "rev-parse", "--short=7", "HEAD").strip()
    table.touch()
    at_the_lock = study_registration(lock, digests, clean, {str(table): clean}, project=tmp_path)["a"]
    assert at_the_lock["defined_in"] == locked and at_the_lock["registered"], at_the_lock
    _git(study.parent, "commit", "-q", "--allow-empty", "-m", "after")
    row = study_registration(lock, digests, clean, {str(table): clean}, project=tmp_path)
    assert row["a"]["registered"], row
    os.utime(table, (0, 0))  # a table older than the lock commit
    early = study_registration(lock, digests, clean, {str(table): clean}, project=tmp_path)["a"]
    assert "written before its registration" in early["registration"]
    other = study_registration(lock, {"toy.a": "2" * 16}, clean, {}, project=tmp_path)["a"]
    assert "differs from toy/claims.lock" in other["registration"]
