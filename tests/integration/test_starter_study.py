"""A study is a plug-in: the scaffold's template study, `starter` (src/icdenoise/scaffold), registered through a
config file alone, is built by real Snakemake runs, locally beside the smoke run's results and through the SLURM
profile. The shared code names it nowhere; its jobs get their sizes from its registration, its ledger joins the
report's checks and its denoiser joins the leaderboard on both of its cases."""

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from runner import LEDGER_FIGURES, SLURM_PROFILE, SMOKE, SNAKEMAKE, built_once, copy_workflow, planned_jobs, smoke_target

from icdenoise.scaffold import NAME, TEMPLATE

pytestmark = pytest.mark.integration

CONFIGS = ["--configfile", "config/smoke.yaml", str(TEMPLATE / f"{NAME}.yaml")]
OWN_RULES = {"compute_starter", "plot_starter_noisy_query", "score_starter_denoisers"}  # and its ledger's
STUDY_OUTPUTS = set(map(smoke_target, [
    "figures/starter/noisy_query.pdf", "figures/starter/claims.parquet", "figures/starter/claims.md",
    "figures/starter/claims.html", "results/starter/noisy_query.parquet", "results/starter/leaderboard_scores/linear.parquet",
    "results/starter/leaderboard_scores/sphere.parquet",
]))


def run(workdir: Path, *args: str, cores: tuple[str, ...] = ("--cores", "2")) -> subprocess.CompletedProcess:
    """snakemake with the template's folder on PYTHONPATH, as its config file says."""
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(TEMPLATE), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([SNAKEMAKE, *args, *cores, *CONFIGS], cwd=workdir, capture_output=True, text=True, timeout=900,
                          env=environment)


def test_no_shared_file_names_the_starter_study(repo):
    """Registering it took no edit outside its folder: the workflow, the package, the configs and the scripts never
    name it (only the scaffold that copies it, the docs and the tests that build it do)."""
    listed = subprocess.run(["git", "-C", str(repo), "grep", "-l", "-i", "-e", NAME, "--", "Snakefile", "workflow", "src",
                             "config", "profiles", "scripts", ":!src/icdenoise/scaffold"], capture_output=True, text=True)
    assert listed.stdout == "", listed.stdout


def build_beside(smoke_run: Path, folder: Path) -> None:
    """A copy of the finished smoke run, then the template's target and the leaderboard with it registered; the
    plan and the build's output are kept beside it."""
    workdir = folder / "workflow"
    shutil.copytree(smoke_run, workdir, symlinks=True)
    plan = run(workdir, "-n", "all")
    built = run(workdir, "all")
    assert built.returncode == 0, built.stderr[-4000:]
    for name, result in (("plan", plan), ("built", built)):
        (folder / f"{name}.json").write_text(json.dumps([result.returncode, result.stdout, result.stderr]))


@pytest.fixture(scope="module")
def beside_the_smoke_run(smoke_run, tmp_path_factory):
    """(working directory, plan, build) of `build_beside`, built once per session (runner.built_once): the
    SLURM test on another worker compares with it."""
    folder = built_once(tmp_path_factory, "starter", lambda folder: build_beside(smoke_run, folder))
    plan, built = (subprocess.CompletedProcess(["snakemake"], *json.loads((folder / f"{name}.json").read_text()))
                   for name in ("plan", "built"))
    return folder / "workflow", plan, built


def test_registering_a_study_plans_its_jobs_and_reruns_only_the_ledgers_and_leaderboard(beside_the_smoke_run):
    """Its own jobs, and the tables that name the whole config (every ledger and the leaderboard): no
    dataset, training or evaluation of the other studies."""
    _, plan, _ = beside_the_smoke_run
    assert plan.returncode == 0, plan.stderr[-4000:]
    jobs = planned_jobs(plan)
    rules = {rule for rule, _ in jobs}
    assert OWN_RULES | {"write_starter_ledger"} <= rules
    ledger_figures = {"plot_" + figure.replace("/", "_") for figure in LEDGER_FIGURES}  # they draw a rebuilt ledger
    assert rules - OWN_RULES == \
        {rule for rule in rules if rule.endswith("_ledger")} | {"build_leaderboard"} | ledger_figures
    assert STUDY_OUTPUTS <= {path for _, outputs in jobs for path in outputs}  # `all` includes the study's target


def test_the_starter_study_builds_its_figure_claim_and_leaderboard_rows(beside_the_smoke_run):
    workdir, _, _ = beside_the_smoke_run
    assert (workdir / SMOKE / "figures/starter/noisy_query.pdf").read_bytes().startswith(b"%PDF")
    ledger = pd.read_parquet(workdir / SMOKE / "figures/starter/claims.parquet")
    assert list(ledger["claim"]) == ["noisy_query_mse_is_noise_variance"] and (ledger["verdict"] == "PASS").all()
    assert not ledger["registered"].any()  # no lock is written for the template (test_scaffold.py locks a copy)
    table = pd.read_parquet(workdir / SMOKE / "results/starter/noisy_query.parquet")
    assert list(table["case"]) == ["linear", "sphere"] and (abs(table["ratio"] - 1) < 0.1).all()
    board = pd.read_parquet(workdir / SMOKE / "figures/leaderboard.parquet").set_index(["case", "estimator"])
    for case in ("linear", "sphere"):
        assert board.loc[(case, "starter_noisy_query"), "mse"] > board.loc[(case, "oracle"), "mse"]
    assert "starter_noisy_query" in (workdir / SMOKE / "figures/leaderboard.md").read_text()


def test_its_job_ran_warm_with_its_package_and_got_its_registered_size(beside_the_smoke_run):
    workdir, plan, built = beside_the_smoke_run
    log = (workdir / SMOKE / "logs" / "compute_starter.log").read_text()
    assert "runs in a warm-start copy" in log.split("\n", 1)[0]
    block = plan.stdout[plan.stdout.index("rule compute_starter:"):].split("\n\n", 1)[0]
    assert "mem_mb=1200" in block and "runtime=2" in block  # the light size model it registered (1.5 × 800 MB, 2 minutes)


def test_the_report_captions_the_starter_study_and_checks_its_ledger(beside_the_smoke_run):
    workdir, _, _ = beside_the_smoke_run
    report = run(workdir, "--report", "report.html")
    assert report.returncode == 0, report.stderr[-4000:]
    html = (workdir / "report.html").read_text()
    assert "The starter study's claims ledger" in html and "The starter study: MSE per coordinate" in html
    (workdir / "other.yaml").write_text("starter:\n  prompts: 1000\n")
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(TEMPLATE), os.environ.get("PYTHONPATH")]))}
    refused = subprocess.run([SNAKEMAKE, "--report", "other.html", "--cores", "1", *CONFIGS, "other.yaml"], cwd=workdir,
                             capture_output=True, text=True, timeout=600, env=environment)
    assert refused.returncode != 0 and not (workdir / "other.html").exists()
    assert smoke_target("figures/starter/claims.parquet: built by run 'smoke' from config/config.yaml + config/smoke.yaml + ") in refused.stderr


def test_the_starter_study_runs_through_the_slurm_profile_with_the_same_numbers(slurm, repo, beside_the_smoke_run, tmp_path):
    workdir = copy_workflow(repo, tmp_path / "workflow")
    targets = ["starter", smoke_target("results/starter/leaderboard_scores/linear.parquet")]
    result = run(workdir, *SLURM_PROFILE, *targets, cores=())
    assert result.returncode == 0, result.stderr[-4000:]
    output = result.stdout + result.stderr
    for local in ("plot_starter_noisy_query", "write_starter_ledger"):  # a study's light jobs run here
        assert re.search(rf"^localrule {local}:$", output, flags=re.MULTILINE), local
    for submitted in ("compute_starter", "score_starter_denoisers"):  # its compute jobs through sbatch
        assert re.search(rf"^rule {submitted}:$", output, flags=re.MULTILINE), submitted
    local, _, _ = beside_the_smoke_run
    for table in map(smoke_target, ["results/starter/noisy_query.parquet", "results/starter/leaderboard_scores/linear.parquet"]):
        pd.testing.assert_frame_equal(pd.read_parquet(workdir / table), pd.read_parquet(local / table), check_exact=True)
    ledger = pd.read_parquet(workdir / SMOKE / "figures/starter/claims.parquet")
    assert (ledger["verdict"] == "PASS").all()
