"""Tasks of one's own, from outside the package: tests/example_task's OffsetRing (with a Bayes posterior mean) and
RotatedLaplace (without), named in a config as ``example_tasks:<Class>`` with their folder on PYTHONPATH, are sampled,
trained on and scored like ours by a real Snakemake run; the case without a Bayes baseline is announced before any
job and marked as such on the leaderboard; a bad class or case is refused before any job, named by its key."""

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from runner import SNAKEMAKE, copy_workflow, merged_config
from snakemake.utils import update_config

from icdenoise.pipeline.config import ConfigError, load_yaml, validate_config
from icdenoise.pipeline.named_runs import FOLDERS

pytestmark = pytest.mark.integration

EXAMPLE = Path(__file__).resolve().parents[1] / "example_task"
RUN = Path("runs") / "own_task"  # the example's config names its own run
CASES = ("ring", "laplace")
TARGETS = [f"{RUN}/results/{stage}/{case}/L20.parquet" for case in CASES for stage in ("bayes", "trained_scores")]


def run(workdir: Path, *args: str, extra: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    """snakemake on one core with the smoke config and the example's, its copy in workdir/own on PYTHONPATH."""
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(workdir / "own"), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([SNAKEMAKE, *args, "--cores", "1", "--configfile", "config/smoke.yaml", "own/config.yaml", *extra],
                          cwd=workdir, capture_output=True, text=True, timeout=600, env=environment)


@pytest.fixture(scope="module")
def own_task(repo, tmp_path_factory):
    """A fresh copy of the workflow building only the two cases' closed forms and trained scores (their datasets and
    trainings with them): (its folder, the run's output)."""
    workdir = copy_workflow(repo, tmp_path_factory.mktemp("own_task") / "workflow")
    shutil.copytree(EXAMPLE, workdir / "own", ignore=shutil.ignore_patterns("__pycache__", "test_*.py", "conftest.py"))
    built = run(workdir, *TARGETS)
    assert built.returncode == 0, built.stderr[-4000:]
    return workdir, built.stdout + built.stderr


def test_a_users_tasks_are_sampled_per_prompt_and_scored_with_their_own_closed_forms(own_task):
    workdir, _ = own_task
    ring = pd.read_parquet(workdir / RUN / "results" / "bayes" / "ring" / "L20.parquet").set_index("estimator")
    assert list(ring.index) == ["oracle", "zero"] and ring.loc["oracle", "mse"] < 0.1 * ring.loc["zero", "mse"]
    assert ring.loc["zero", "expected"] == pytest.approx((4 * 0.5 + 1.0) / 4)  # OffsetRing.second_moment / n
    assert abs(ring.loc["zero", "mse"] - ring.loc["zero", "expected"]) < 4 * ring.loc["zero", "sem"]
    assert np.isnan(ring.loc["oracle", "expected"])  # no bayes_loss
    laplace = pd.read_parquet(workdir / RUN / "results" / "bayes" / "laplace" / "L20.parquet")
    assert list(laplace["estimator"]) == ["zero"] and laplace["expected"].iloc[0] == pytest.approx(2 * 0.5**2)
    dataset = pd.read_parquet(workdir / RUN / "results" / "datasets" / "ring" / "L20.parquet")
    assert {"centre", "basis"} <= set(dataset.columns) and len(dataset) == 60
    for case in CASES:
        scores = pd.read_parquet(workdir / RUN / "results" / "trained_scores" / case / "L20.parquet")
        assert list(scores["estimator"]) == ["softmax", "softmax"] and list(scores["seed"]) == [0, 1]
        assert scores["mse"].notna().all()


def test_the_case_without_a_bayes_baseline_is_announced_and_marked_missing_on_the_leaderboard(own_task):
    """The notice comes before any job; the leaderboard, built from these tables as build_leaderboard builds it, gives
    the ring its ratios and the Laplace case NO_BAYES, never the '–' of an exact Bayes."""
    from icdenoise.records.leaderboard import NO_BAYES, leaderboard_table, markdown

    workdir, log = own_task
    notice = "no Bayes baseline for task example_tasks:RotatedLaplace (case laplace): the leaderboard scores it against the zero predictor"
    assert notice in log and log.index(notice) < log.index("rule sample_prompts") and "OffsetRing (case ring)" not in log
    def tables(stage):
        return pd.concat([pd.read_parquet(workdir / RUN / "results" / stage / case / "L20.parquet") for case in CASES])

    cases = load_yaml(workdir / "own" / "config.yaml")["cases"]
    board = leaderboard_table(tables("bayes"), tables("trained_scores"), cases)
    ring, laplace = (board[board["case"] == case].set_index("estimator") for case in CASES)
    assert ring.loc["oracle", "ratio_to_bayes"] == 1.0 and ring.loc["softmax", "ratio_to_bayes"] > 1.0
    assert laplace[["bayes_mse", "ratio_to_bayes", "gap_to_zero"]].isna().all().all()
    text = markdown(board, {"run": "own_task", "files": [], "merged_sha256": "0" * 64})
    section = text.split("## laplace")[1]
    assert section.count(NO_BAYES) == 4 and "–" not in section


def test_editing_a_users_task_reruns_exactly_the_jobs_of_its_cases(own_task):
    workdir, _ = own_task
    source = workdir / "own" / "example_tasks.py"
    original = source.read_text()
    source.write_text(original + "\n# edited\n")
    try:
        plan = run(workdir, "-n", *TARGETS)
    finally:
        source.write_text(original)
    assert plan.returncode == 0, plan.stderr[-3000:]
    rerun = {line.split(":", 1)[1].strip() for line in plan.stdout.splitlines() if line.strip().startswith("output:")}
    assert rerun and all("/ring/" in path or "/laplace/" in path for path in rerun), rerun
    assert any("/datasets/" in path for path in rerun)


# Each bad case (merged over the smoke config) and (part of) the problem the check names for it.
BAD_CASES = {
    "not_a_task": ({"task": "example_tasks:NotATask"}, "cases.not_a_task.task: example_tasks:NotATask (",
                   "is not a subclass of icdenoise.maths.tasks.UserTask"),
    "no_sampler": ({"task": "example_tasks:NoSampler", "scale": 1.0}, "cases.no_sampler.task: example_tasks:NoSampler (",
                   "example_tasks.py): it does not implement sample_tokens(rng, count)"),
    "no_module": ({"task": "no_such_module:Ring"}, "cases.no_module.task: no_such_module:Ring (no module no_such_module on PYTHONPATH): ",
                  "cannot import it (ModuleNotFoundError"),
    "global_random": ({"task": "example_tasks:GlobalRandom", "scale": 1.0}, "cases.global_random.task: example_tasks:GlobalRandom (",
                      "it must draw from its `rng` alone"),
    "small_ring": ({"task": "example_tasks:OffsetRing", "radius": 1.0, "centre_sq": 0.5, "n": 1}, "cases.small_ring: example_tasks:OffsetRing (",
                   "cannot be built from the case's keys (ValueError: a ring needs n ≥ 2, not n = 1)"),
    "misspelt": ({"task": "example_tasks:OffsetRing", "radus": 1.0, "centre_sq": 0.5}, "cases.misspelt.radius: missing, a parameter of the "
                 "task example_tasks:OffsetRing (", "(its parameters: n, radius, centre_sq)"),
}


def test_each_bad_task_is_named_by_its_case_key_with_its_file_and_problem(repo, monkeypatch):
    """validate_config, the check the workflow runs before any job, in this process (no Snakemake): one child
    interpreter, with the example's folder on its PYTHONPATH, checks every case's task (and this process finds the
    class's file on its path, as Snakemake's does with the same PYTHONPATH)."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(EXAMPLE), os.environ.get("PYTHONPATH")])))
    monkeypatch.syspath_prepend(str(EXAMPLE))
    config = merged_config(repo)
    common = {"n": 4, "corruption": {"kind": "query", "sigma_z_sq": 0.1}, "L": 20}
    update_config(config, {"cases": {case: {**common, **block} for case, (block, _, _) in BAD_CASES.items()}})
    with pytest.raises(ConfigError) as refused:
        validate_config(config, repo / "workflow" / "schemas")
    header, *problems = str(refused.value).splitlines()
    assert header == f"invalid configuration ({len(BAD_CASES) + 1} problems):"
    for start, problem in ((start, problem) for _, start, problem in BAD_CASES.values()):
        assert any(line.startswith(f"  - {start}") and problem in line for line in problems), (start, problems)
    assert f"  - cases.misspelt.radus: not a parameter of the task example_tasks:OffsetRing ({EXAMPLE / 'example_tasks.py'}); " \
           "did you mean radius? (its parameters: n, radius, centre_sq)" in problems


def test_a_bad_task_is_refused_before_any_job(repo, tmp_path):
    """In Snakemake's own check, with the class's folder on Snakemake's PYTHONPATH: the problem is printed under the
    config file that sets the key, and no job runs."""
    workdir = copy_workflow(repo, tmp_path / "workflow")
    shutil.copytree(EXAMPLE, workdir / "own", ignore=shutil.ignore_patterns("__pycache__"))
    (workdir / "bad.yaml").write_text("cases: {laplace: {task: 'example_tasks:NoSampler'}}\n")
    result = run(workdir, *TARGETS, extra=("bad.yaml",))
    assert result.returncode != 0 and "invalid configuration (1 problem)" in result.stderr, result.stderr[-2000:]
    assert "  in bad.yaml:\n    - cases.laplace.task: example_tasks:NoSampler (" in result.stderr
    assert "it does not implement sample_tokens(rng, count)" in result.stderr
    assert not {"runs", *FOLDERS} & {path.name for path in workdir.iterdir()}
