"""Experiments beside the papers, by real Snakemake runs: named runs side by side in one checkout, the sweeps
declared in the smoke config, and the comparison of two runs (conftest.experiments_run)."""

import re
import shlex
import subprocess

import pandas as pd
import pytest
import yaml
from conftest import SECOND_RUN
from runner import SMOKE, copy_workflow, merged_config, planned_jobs, planned_outputs, smoke_target, snakemake

from icdenoise.pipeline.config import all_runs, validate_config
from icdenoise.pipeline.named_runs import FOLDERS
from icdenoise.pipeline.sweeps import bayes_source, shared_points, sweep_points
from icdenoise.records.artifacts import read_metadata
from icdenoise.records.claims import VERDICTS
from icdenoise.records.weights import diagonal_means

pytestmark = pytest.mark.integration

SECOND = SMOKE.parent / SECOND_RUN["run"]["name"]
SHARED_STAGES = ("sample_prompts", "train_ensemble", "evaluate_bayes", "evaluate_trained")


def smoke_shared(repo):
    """The smoke sweeps' points that share a configured case's jobs (point → that case), as the workflow finds
    them: at the case's σ_z² (noise), n (dimension), L and dataset seed (data_seed), with the training seeds."""
    config = merged_config(repo)
    shared = shared_points(config, sweep_points(config), all_runs(config, validate_config(config, repo / "workflow" / "schemas")))
    assert shared == {"sphere.noise1": "sphere", "gmm.noise1": "gmm", "gmm.dimension1": "gmm", "linear.data_seed3": "linear"}
    return shared


def test_two_named_runs_are_built_one_after_the_other_and_neither_invalidates_the_other(experiments_run):
    workdir = experiments_run["workdir"]
    for plan in (experiments_run["smoke_after_second"], experiments_run["second_after_smoke"]):
        assert plan.returncode == 0, plan.stderr[-3000:]
        assert planned_outputs(plan) == set()
    first, second = (pd.read_parquet(workdir / root / "figures" / "leaderboard.parquet") for root in (SMOKE, SECOND))
    assert len(first) == len(second) and not first["mse"].equals(second["mse"])  # other datasets
    assert read_metadata(workdir / SECOND / "figures" / "leaderboard.parquet")["run"] == "smoke_seed7"
    assert "Run `smoke_seed7`." in (workdir / SECOND / "figures" / "alltoken" / "claims.md").read_text()


def test_each_run_saves_its_merged_config_in_its_own_folder(experiments_run, repo):
    workdir = experiments_run["workdir"]
    saved = yaml.safe_load((workdir / SECOND / "results" / "config.yaml").read_text())
    expected = merged_config(repo)
    expected["run"], expected["dataset"]["seed"] = SECOND_RUN["run"], SECOND_RUN["dataset"]["seed"]
    assert saved == expected
    assert yaml.safe_load((workdir / SMOKE / "results" / "config.yaml").read_text())["comparison"]["runs"] == ["smoke_seed7"]


def test_the_base_config_run_writes_at_the_top_and_is_untouched_by_another_run(repo, tmp_path):
    """config/config.yaml's run (the paper's; here a tiny stand-in named paper) builds figures/fig4b.pdf and its
    tables at the top, the smoke run then builds its Figure 4(b) under runs/smoke/, and the base run's plan is empty
    again. (One figure shows where a run writes, Figure 4(b) with the fewest jobs of a figure that trains: a dataset, a
    training, its table and the plot; the leaderboard's jobs would add a minute and show nothing more.)"""
    workdir = copy_workflow(repo, tmp_path / "workflow")
    base = merged_config(repo)
    base["run"] = {"name": "paper"}
    (workdir / "config" / "config.yaml").write_text(yaml.safe_dump(base, sort_keys=False))
    (workdir / "nothing.yaml").write_text("{}\n")
    paper = snakemake(workdir, "figures/fig4b.pdf", configfile="nothing.yaml")
    assert paper.returncode == 0, paper.stderr[-3000:]
    smoke = snakemake(workdir, smoke_target("figures/fig4b.pdf"), configfile="config/smoke.yaml")  # another run, in one figure
    assert smoke.returncode == 0, smoke.stderr[-3000:]
    assert (workdir / "figures" / "fig4b.pdf").is_file() and (workdir / SMOKE / "figures" / "fig4b.pdf").is_file()
    assert (workdir / "figures" / "fig4b.parquet").is_file() and (workdir / "results" / "train").is_dir()
    assert sorted(path.name for path in (workdir / "runs").iterdir()) == ["smoke"]
    again = snakemake(workdir, "-n", "figures/fig4b.pdf", configfile="nothing.yaml")
    assert again.returncode == 0, again.stderr[-3000:]
    assert planned_outputs(again) == set(), again.stdout[-3000:]


def test_every_sweep_point_is_trained_and_scored_by_the_shared_stages(experiments_run, repo):
    """Each point not sharing a configured case's jobs has jobs of its own, logged under its name; a shared one has none."""
    workdir = experiments_run["workdir"]
    sweeps, shared = merged_config(repo)["sweeps"], smoke_shared(repo)
    for name, spec in sweeps.items():
        table = pd.read_parquet(workdir / SMOKE / "results" / "sweeps" / f"{name}.parquet")
        points = 1
        for values in spec["grid"].values():
            points *= len(values)
        assert table["case"].nunique() == points * len(spec["cases"]), name
        assert len(table) == points * len(spec["cases"]) * len(spec["models"]) * len(spec["seeds"]), name
        assert table[["mse", "bayes_mse", "ratio_to_bayes"]].notna().all().all() and (table["ratio_to_bayes"] > 0).all()
        points = sweep_points(merged_config(repo))
        for case in table["case"].unique():
            own = [stage for stage in SHARED_STAGES
                   if case not in shared and (stage != "evaluate_bayes" or bayes_source(merged_config(repo), points[case], shared) == case)]
            for stage in SHARED_STAGES:  # a point whose case block is its base case's reads that case's closed forms
                assert bool(list((workdir / SMOKE / "logs" / stage).glob(f"case={case},*"))) == (stage in own), (case, stage)
        assert (workdir / SMOKE / "figures" / "sweeps" / f"{name}.pdf").read_bytes().startswith(b"%PDF")
    noise = pd.read_parquet(workdir / SMOKE / "results" / "sweeps" / "noise.parquet")
    assert (noise["beta_theory"] == 1 / noise["case.corruption.sigma_z_sq"]).all()
    assert (noise["alpha"] >= 0).all()


def test_a_sweep_point_at_its_base_cases_settings_reads_that_cases_numbers(experiments_run, repo):
    """A point that shares its base case's jobs (the noise sweep's σ_z² = 0.1 point of the sphere case is the
    smoke sphere case itself) has, under its own name, the case's scores, closed form and learned scales,
    value for value, of the sweep's models; gmm's are read by two sweeps' points."""
    workdir = experiments_run["workdir"]
    assert merged_config(repo)["cases"]["sphere"]["corruption"]["sigma_z_sq"] == 0.1
    results = workdir / SMOKE / "results"
    for point, case in smoke_shared(repo).items():
        sweep = point.split(".")[1].rstrip("0123456789")
        rows = pd.read_parquet(results / "sweeps" / f"{sweep}.parquet").query("case == @point").set_index(["model", "seed"]).sort_index()
        scores = pd.read_parquet(results / "trained_scores" / case / "L20.parquet").rename(columns={"estimator": "model"})
        scores = scores[scores["model"].isin(merged_config(repo)["sweeps"][sweep]["models"])].set_index(["model", "seed"]).sort_index()
        assert list(rows.index) == list(scores.index) and (rows["mse"] == scores["mse"]).all() and (rows["sem"] == scores["sem"]).all(), point
        bayes = pd.read_parquet(results / "bayes" / case / "L20.parquet").set_index("estimator")
        assert (rows["bayes_mse"] == bayes.loc["oracle", "mse"]).all() and (rows["base"] == case).all(), point
        for model, seed in rows.index:
            weights = pd.read_parquet(results / "train" / case / "L20" / model / "weights.parquet")
            scales = diagonal_means(weights[(weights["stage"] == "final") & (weights["seed"] == seed)])
            if "alpha" in scales:
                alpha, beta = scales["alpha"].item(), scales["beta"].item()
                assert rows.loc[(model, seed), ["alpha", "gamma"]].tolist() == [abs(alpha), alpha * beta], (point, model, seed)


def test_the_comparison_stacks_both_runs_leaderboards_and_verdicts(experiments_run):
    workdir = experiments_run["workdir"]
    table = pd.read_parquet(workdir / SMOKE / "figures" / "comparison.parquet")
    assert set(table["run"]) == {"smoke", "smoke_seed7"}
    for run in ("smoke", "smoke_seed7"):
        board = pd.read_parquet(workdir / (SMOKE if run == "smoke" else SECOND) / "figures" / "leaderboard.parquet")
        rows = table[(table["run"] == run) & (table["kind"] == "leaderboard")]
        assert len(rows) == len(board) and set(rows["verdict"].dropna()) == set()
        assert set(table.loc[(table["run"] == run) & (table["kind"] == "claim"), "verdict"]) <= set(VERDICTS)
    text = (workdir / SMOKE / "figures" / "comparison.md").read_text()
    assert "| `smoke` | onelayer |" in text and "| `smoke_seed7` | alltoken |" in text
    assert (workdir / SMOKE / "figures" / "comparison.pdf").read_bytes().startswith(b"%PDF")


def test_a_comparison_of_leaderboards_builds_no_ledger_and_no_figure_but_its_own(experiments_run):
    """comparison.ledgers: false (the default) compares the leaderboards alone: planned from scratch, the target
    needs this run's leaderboard and what it reads, never a ledger or another figure."""
    workdir = experiments_run["workdir"]
    (workdir / "boards.yaml").write_text(yaml.safe_dump({"comparison": {"runs": ["smoke_seed7"], "ledgers": False}}))
    result = snakemake(workdir, "-n", "--forceall", "comparison", configfile=["config/smoke.yaml", "boards.yaml"])
    assert result.returncode == 0, result.stderr[-4000:]
    rules = {rule for rule, _ in planned_jobs(result)}
    assert {"build_leaderboard", "compare_runs", "plot_comparison"} <= rules
    assert not {rule for rule in rules if rule.endswith("_ledger") or (rule.startswith("plot_") and rule != "plot_comparison")}


def test_the_comparison_leads_with_the_settings_that_differ(experiments_run):
    text = (experiments_run["workdir"] / SMOKE / "figures" / "comparison.md").read_text()
    assert text.index("## Settings that differ") < text.index("## Verdicts") < text.index("## Leaderboards")
    assert "| dataset.seed | 0 | 7 |" in text  # smoke_seed7's one change (conftest.SECOND_RUN)


def test_a_comparison_with_a_run_never_built_is_refused_without_a_traceback_with_a_command_that_runs(repo, tmp_path):
    """Refused while Snakemake plans the jobs, before any runs: the message alone, and the command it suggests runs
    as written (here as a dry run) from the working directory, whether or not snakemake is on PATH."""
    workdir = copy_workflow(repo, tmp_path / "workflow")
    (workdir / "unbuilt.yaml").write_text("comparison: {runs: [never_built]}\n")
    result = snakemake(workdir, "-n", "comparison", configfile=["config/smoke.yaml", "unbuilt.yaml"])
    output = result.stdout + result.stderr
    assert result.returncode == 1 and "Traceback" not in output and "InputFunctionException" not in output, output[-3000:]
    assert ("comparison.runs: run 'never_built' has no runs/never_built/figures/leaderboard.parquet; no saved "
            "runs/never_built/results/config.yaml and no file in config/ names it (run: {name: never_built}): check the name") in output
    (workdir / "config" / "never_built.yaml").write_text("run: {name: never_built}\n")
    result = snakemake(workdir, "-n", "comparison", configfile=["config/smoke.yaml", "unbuilt.yaml"])
    command = re.search(r"build it first: (.*--configfile config/never_built.yaml)$", result.stdout + result.stderr, re.MULTILINE)
    assert result.returncode == 1 and command, result.stdout[-3000:]
    suggested = subprocess.run([*shlex.split(command[1]), "-n"], cwd=workdir, capture_output=True, text=True, timeout=600)
    assert suggested.returncode == 0 and "build_leaderboard" in suggested.stdout, suggested.stderr[-3000:]


def test_a_sweep_point_with_invalid_settings_stops_before_any_job(repo, tmp_path):
    """The check of every point's settings runs only once the rest of the config is valid, so it has a run of its own;
    each bad sweep's message is checked in process (tests/unit/pipeline/test_sweeps.py)."""
    workdir = copy_workflow(repo, tmp_path / "workflow")
    sweep = {"cases": ["sphere"], "models": ["softmax"], "seeds": [0], "grid": {"case.n": [0, 4]}}
    (workdir / "bad.yaml").write_text(yaml.safe_dump({"sweeps": {"bad": sweep}}))
    result = snakemake(workdir, "sweep_bad", configfile=["config/smoke.yaml", "bad.yaml"])
    assert result.returncode != 0 and "invalid configuration (1 problem)" in result.stderr, result.stderr[-2000:]
    assert "sweeps.bad at case.n = 0 (case sphere.bad0): cases.sphere.n: 0 is less than the minimum of 1" in result.stderr
    assert not {"runs", *FOLDERS} & {path.name for path in workdir.iterdir()}


def test_the_sweep_targets_plan_the_shared_stages_but_none_for_a_shared_point_and_all_plans_no_sweep(experiments_run, repo):
    sweep = planned_jobs(snakemake(experiments_run["workdir"], "-n", "--forceall", "sweeps"))
    assert {"summarise_sweep", "plot_sweep", *SHARED_STAGES} == {rule for rule, _ in sweep}
    cases = {path.split("/")[4] for rule, outputs in sweep if rule in SHARED_STAGES for path in outputs}
    points = sweep_points(merged_config(repo))
    shared = smoke_shared(repo)
    assert cases & set(points) == set(points) - set(shared) and set(shared.values()) <= cases
    everything = planned_jobs(snakemake(experiments_run["workdir"], "-n", "--forceall", "all"))
    assert not {rule for rule, _ in everything} & {"plot_sweep", "compare_runs"}
    summarised = {path for rule, outputs in everything if rule == "summarise_sweep" for path in outputs}
    assert summarised == {f"{SMOKE}/results/sweeps/onelayer_datasets.parquet"}  # the onelayer ledger's own sweep, no other


def test_the_learning_rate_grid_reads_the_regressions_own_point_and_records_a_diverged_one(experiments_run, repo):
    """mssa_lr_grid on the smoke config: learning rates 0.003 (the regression's own: its trainings are read, not run
    again) and 10 (diverges at once: a row with its step and loss, and the table and figure are built)."""
    results = experiments_run["workdir"] / SMOKE / "results" / "mssa"
    grid = pd.read_parquet(results / "lr_grid.parquet")
    regression = merged_config(repo)["mssa"]["regression"]
    assert len(grid) == len(regression["tasks"]) * len(regression["models"]) * 2 * len(regression["seeds"])
    own = grid[grid["learning_rate"] == regression["learning_rate"]]
    assert own["shared"].all() and (own["status"] == "trained").all()
    for row in own.itertuples():
        errors = pd.read_parquet(results / "regression" / row.task / row.model / f"seed{row.seed}" / "errors.parquet")
        assert row.normalized_mse == errors.loc[errors["examples"].idxmax(), "normalized_mse"]
    assert not list((results / "lr_grid").glob(f"*/*/lr{regression['learning_rate']!r}_*"))  # never trained again
    diverged = grid[grid["learning_rate"] == 10.0]
    assert (diverged["status"] == "diverged").all() and diverged["normalized_mse"].isna().all()
    assert (diverged["divergence_step"] >= 0).all() and (diverged["divergence_loss"] > 0).all()
    assert (experiments_run["workdir"] / SMOKE / "figures" / "mssa" / "lr_grid.pdf").read_bytes().startswith(b"%PDF")
