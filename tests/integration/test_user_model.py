"""A model of one's own, from outside the package: tests/example_model's ScaledQuery, named in a config as
``scaled_query_model:ScaledQuery`` with its folder on PYTHONPATH, is trained, scored, put on the leaderboard
and swept exactly like ours, by real Snakemake runs; a bad class is refused before any job."""

import os
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from runner import SMOKE, SNAKEMAKE, copy_workflow, merged_config, planned_jobs
from snakemake.utils import update_config

from icdenoise.pipeline.config import ConfigError, validate_config
from icdenoise.pipeline.named_runs import FOLDERS

pytestmark = pytest.mark.integration

EXAMPLE = Path(__file__).resolve().parents[1] / "example_model"
RUN = SMOKE  # its config names a run of its own (own_model); here it is built beside the smoke run's results instead
BESIDE = "run: {name: smoke}\n"  # merged after the example's config
TARGETS = ["leaderboard", "sweep_learning_rate"]


def run(workdir: Path, *args: str, extra: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    """snakemake with the smoke config and the example's, its copy in workdir/own on PYTHONPATH."""
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(workdir / "own"), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([SNAKEMAKE, *args, "--cores", "2", "--configfile", "config/smoke.yaml", "own/config.yaml", *extra],
                          cwd=workdir, capture_output=True, text=True, timeout=900, env=environment)


@pytest.fixture(scope="module")
def own_model(smoke_run, tmp_path_factory):
    """A copy of the finished smoke run, then the example's config merged over it, under the smoke run's name:
    only the jobs the model adds or changes (the linear case's trainings, the leaderboard, the sweep) run."""
    workdir = tmp_path_factory.mktemp("own_model") / "workflow"
    shutil.copytree(smoke_run, workdir, symlinks=True)
    shutil.copytree(EXAMPLE, workdir / "own")
    (workdir / "beside.yaml").write_text(BESIDE)
    built = run(workdir, *TARGETS, extra=("beside.yaml",))
    assert built.returncode == 0, built.stderr[-4000:]
    return workdir


def test_a_users_model_is_trained_scored_and_put_on_the_leaderboard_like_ours(own_model):
    board = pd.read_parquet(own_model / RUN / "figures" / "leaderboard.parquet").set_index(["case", "estimator"])
    row = board.loc[("linear", "scaled_query")]
    assert row["kind"] == "trained" and row["n_seeds"] == 2
    assert board.loc[("linear", "oracle"), "mse"] < row["mse"] < board.loc[("linear", "zero"), "mse"]
    weights = pd.read_parquet(own_model / RUN / "results" / "train" / "linear" / "L20" / "scaled_query" / "weights.parquet")
    assert set(weights["matrix"]) == {"scale"} and set(weights["seed"]) == {0, 1}


def test_a_users_model_is_swept_beside_ours(own_model):
    table = pd.read_parquet(own_model / RUN / "results" / "sweeps" / "learning_rate.parquet")
    assert set(table["model"]) == {"scaled_query", "linear"} and set(table["training.lr"]) == {0.003, 0.01, 0.03}
    assert table["mse"].notna().all() and table.loc[table["model"] == "scaled_query", "alpha"].isna().all()


def test_editing_the_users_model_reruns_exactly_the_jobs_that_train_or_score_it(own_model):
    source = own_model / "own" / "scaled_query_model.py"
    original = source.read_text()
    source.write_text(original + "\n# edited\n")
    try:
        plan = run(own_model, "-n", *TARGETS, extra=("beside.yaml",))
    finally:
        source.write_text(original)
    assert plan.returncode == 0, plan.stderr[-3000:]
    trained = {outputs[0] for rule, outputs in planned_jobs(plan) if rule == "train_ensemble"}
    assert trained and all("/scaled_query/" in path for path in trained)


# Each bad class and (part of) the problem the check names for it, in the order of the config's models.
BAD_CLASSES = {
    "scaled_query_model:NoForward": "it does not implement forward",
    "no_such_module:Model": "cannot import it (ModuleNotFoundError",
    "scaled_query_model:torch": "is not a subclass of icdenoise.maths.models.EnsembleModel",
}


def test_each_bad_class_is_named_by_its_models_key_with_its_problem(repo, monkeypatch):
    """validate_config, the check the workflow runs before any job, called in this process (no Snakemake) on the smoke
    config with the bad models merged over it: one child interpreter, with the example's folder on its PYTHONPATH,
    checks every class (that child is why this test is not a unit test)."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(EXAMPLE), os.environ.get("PYTHONPATH")])))
    config = merged_config(repo)
    names = {architecture: f"bad{index}" for index, architecture in enumerate(BAD_CLASSES)}
    update_config(config, {"models": {name: {"architecture": architecture} for architecture, name in names.items()},
                           "leaderboard": {"extra_runs": {"linear": list(names.values())}}})  # as --configfile merges a file
    with pytest.raises(ConfigError) as refused:
        validate_config(config, repo / "workflow" / "schemas")
    header, *problems = str(refused.value).splitlines()
    assert header == f"invalid configuration ({len(BAD_CLASSES)} problems):"
    for (architecture, problem), line in zip(BAD_CLASSES.items(), problems):
        assert line.startswith(f"  - models.{names[architecture]}.architecture: {architecture}: ") and problem in line, line


def test_a_class_that_lacks_the_interface_is_refused_before_any_job(repo, tmp_path):
    """In Snakemake's own check, with the class's folder on Snakemake's PYTHONPATH: the class is found there and
    its problem is printed; no job runs."""
    workdir = copy_workflow(repo, tmp_path / "workflow")
    shutil.copytree(EXAMPLE, workdir / "own")
    (workdir / "bad.yaml").write_text('models: {bad: {architecture: "scaled_query_model:NoForward"}}\n'
                                      "leaderboard: {extra_runs: {linear: [bad]}}\n")
    result = run(workdir, "leaderboard", extra=("bad.yaml",))
    assert result.returncode != 0 and "invalid configuration (1 problem)" in result.stderr, result.stderr[-2000:]
    assert "models.bad.architecture: scaled_query_model:NoForward: it does not implement forward" in result.stderr
    assert not {"runs", *FOLDERS} & {path.name for path in workdir.iterdir()}
