"""The real `snakemake` command on a temporary copy of the workflow with the smoke config."""

import json
import re
import subprocess
from pathlib import Path

import pandas as pd
import pytest
import yaml

from icdenoise.artifacts import read_metadata
from icdenoise.codedeps import rule_scripts
from pins import PINS, key_outputs
from runner import SNAKEMAKE, copy_workflow, most_jobs_at_once, planned_outputs, planned_priorities, snakemake

pytestmark = pytest.mark.integration

FIGURES = ["fig1", "fig2", "fig3", "fig4a", "fig4b", "fig5", "fig6", "fig7", "fig8"]


def test_every_figure_and_the_ledger_are_built(smoke_run, repo):
    for figure in FIGURES:
        pdf = smoke_run / "figures" / f"{figure}.pdf"
        assert pdf.read_bytes().startswith(b"%PDF") and pdf.stat().st_size > 5000, figure
    ledger = pd.read_parquet(smoke_run / "figures" / "claims.parquet")
    configured = yaml.safe_load((repo / "config" / "config.yaml").read_text())["onelayer"]["claims"]
    assert set(ledger["claim"]) == set(configured)
    assert ledger["passed"].dtype == bool and ledger[["ours_mean", "ours_min", "ours_max"]].notna().all().all()
    text = (smoke_run / "figures" / "claims.md").read_text()
    assert text.count("\n| `") == len(configured)


def test_smoke_outputs_equal_their_pins(smoke_run):
    """Trained values within 1e-5 relative (float32 training may round differently on another CPU),
    closed forms (float64) within 1e-9."""
    pinned, measured = json.loads(PINS.read_text()), key_outputs(smoke_run)
    assert set(measured) == set(pinned)
    for key, value in pinned.items():
        tolerance = 1e-9 if key.startswith("bayes/") else 1e-5
        assert measured[key] == pytest.approx(value, rel=tolerance, abs=1e-12), key


def test_every_job_of_the_local_run_ran_in_a_warm_copy_and_ended_cleanly(smoke_run, repo):
    """The smoke config's jobs all have one thread, so each is handed over (icdenoise.warmstart): the
    pinned outputs above were computed in the copies."""
    log = (smoke_run / "warmstart.log").read_text()
    started = re.findall(r"^\S+ (\S+\.py): runs in copy (\d+)$", log, flags=re.M)
    ended = dict(re.findall(r"^\S+ copy (\d+) ended with status (-?\d+) ", log, flags=re.M))
    scripts = rule_scripts(repo)
    jobs = [name for name in re.findall(r"^(?:local)?rule (\w+):$", (smoke_run / "snakemake.stderr").read_text(), flags=re.M)
            if name in scripts]
    assert sorted(label for label, _ in started) == sorted(scripts[name].name for name in jobs)
    assert all(ended[copy] == "0" for _, copy in started)


def test_leaderboard_scores_every_case_with_every_denoiser_that_applies(smoke_run):
    board = pd.read_parquet(smoke_run / "figures" / "leaderboard.parquet")
    paper_cases = list(yaml.safe_load((smoke_run / "config" / "config.yaml").read_text())["cases"])
    assert set(board["case"]) == set(paper_cases) | {"gmm_all_tokens"}  # every case of the merged config
    alltoken = set(board.loc[board["case"] == "alltoken_mixture", "estimator"])
    assert alltoken == {"oracle", "zero", "alltoken_learned", "stage1_only", "stage2_only", "two_stage"}  # the study's rows joined
    lowrank = board[board["case"] == "mssa_lowrank"].set_index("estimator")
    assert set(lowrank.index) == {"oracle", "zero", "mssa_known_bases_thresholded", "mssa_known_bases_softmax"}
    assert lowrank.loc["oracle", "mse"] < lowrank.loc["mssa_known_bases_thresholded", "mse"] < lowrank.loc["zero", "mse"]
    oracle = board[board["estimator"] == "oracle"]
    assert (oracle["ratio_to_bayes"] == 1.0).all() and len(oracle) == board["case"].nunique()
    sphere = board[board["case"] == "sphere"].set_index("estimator")
    assert {"linear", "softmax"} <= set(sphere.index) and (sphere.loc[["linear", "softmax"], "n_seeds"] == 2).all()
    all_tokens = board[board["case"] == "gmm_all_tokens"].set_index("estimator")
    assert set(all_tokens.index) == {"oracle", "oracle_point_masses", "zero", "stacked"}  # no context-reading closed form
    assert all_tokens.loc["stacked", "kind"] == "trained" and all_tokens.loc["oracle", "mse"] < all_tokens.loc["zero", "mse"]
    assert "## gmm_all_tokens (gmm task, all_tokens corruption, L = 16)" in (smoke_run / "figures" / "leaderboard.md").read_text()


def test_figure_tables_have_their_columns(smoke_run):
    figures = smoke_run / "figures"
    sweep = pd.read_parquet(figures / "fig4a.parquet")
    assert set(sweep["L"]) == {10, 20} and {"gamma", "gamma_star", "best_test_mse", "oracle_test_mse", "excess_mse"} <= set(sweep.columns)
    shift = pd.read_parquet(figures / "fig4b.parquet")
    assert set(shift["d_prime"]) == {1, 2, 3} and set(shift["stage"]) == {"initial", "final"}
    steps = pd.read_parquet(figures / "fig5_steps.parquet")
    assert list(steps.loc[steps["estimator"] == "descent", "steps"]) == [0, 1, 10]
    grid = pd.read_parquet(figures / "fig5_landscape.parquet")
    assert len(grid) == 20 * 20
    landscape = pd.read_parquet(smoke_run / "results" / "landscape" / "sphere.parquet")
    assert (landscape["kind"] == "grid").sum() == 36 and set(landscape["kind"]) == {"grid", "heuristic", "trained", "minimum"}
    assert (landscape["alpha"] < 0).any() and (landscape["beta"] < 0).any()
    similarity = pd.read_parquet(figures / "fig8_similarity.parquet")
    assert set(similarity["model"]) == {"linear", "softmax"} and similarity["cosine"].between(-1, 1).all()
    points = pd.read_parquet(figures / "fig1.parquet")
    assert set(points["case"]) == {"linear_3d", "sphere_3d", "gmm_3d"}
    assert {"context", "query", "target", "bayes", "model", "projection"} <= set(points["kind"])


def test_the_memory_study_builds_its_fits_and_ledger(smoke_run, repo):
    figures = smoke_run / "figures" / "memory"
    for figure in ("capacity_curves", "capacity_fit", "gradient_step", "variance", "width", "zipf_n", "zipf_d", "zipf_optimum", "induction"):
        assert (figures / f"{figure}.pdf").read_bytes().startswith(b"%PDF"), figure
    fits = pd.read_parquet(figures / "capacity_fit.parquet")
    assert {"map", "slope", "ci_low", "ci_high"} <= set(fits.columns) and {"injective", "binary"} <= set(fits["map"])
    assert (fits["ci_low"] < fits["slope"]).all() and (fits["slope"] < fits["ci_high"]).all()
    ledger = pd.read_parquet(figures / "claims.parquet")
    assert set(ledger["claim"]) == set(yaml.safe_load((repo / "config" / "config.yaml").read_text())["memory"]["claims"])
    induction = pd.read_parquet(figures / "induction.parquet")
    assert set(zip(induction["layers"], induction["optimizer"])) == {(1, "adam"), (1, "sgd"), (2, "adam"), (2, "sgd")}


def test_every_training_run_is_planned_once(repo, tmp_path):
    """One training job per (case, L, model): Figs. 4(a) at L = 20, 4(b), 6, 7 and the leaderboard add none."""
    workdir = copy_workflow(repo, tmp_path / "workflow")
    result = snakemake(workdir, "-n", "all")
    assert result.returncode == 0, result.stderr[-4000:]
    trained = {path for path in planned_outputs(result) if path.startswith("results/train/") and path.endswith("losses.parquet")}
    assert trained == {
        *(f"results/train/{case}/L20/{model}/losses.parquet" for case in ("linear", "sphere", "gmm") for model in ("linear", "softmax")),
        "results/train/linear/L10/linear/losses.parquet",
        *(f"results/train/linear_transformed/L20/{model}/losses.parquet" for model in ("linear", "softmax")),
        "results/train/linear_3d/L20/linear/losses.parquet",
        "results/train/sphere_3d/L20/softmax/losses.parquet",
        "results/train/gmm_3d/L20/softmax/losses.parquet",
        "results/train/gmm_all_tokens/L16/stacked/losses.parquet",
        "results/train/alltoken_mixture/L16/alltoken_learned/losses.parquet",
    }


def test_figure_3_jobs_start_longest_first(repo, tmp_path):
    """Among ready jobs the longest starts first (icdenoise.resources' estimates): with the paper's
    config, the datasets, then the L = 500 softmax trainings, then each case's closed forms, then
    the linear-attention trainings, whose features are only n × n."""
    workdir = copy_workflow(repo, tmp_path / "workflow")
    result = snakemake(workdir, "-n", "figures/fig3.pdf", configfile="config/config.yaml")
    assert result.returncode == 0, result.stderr[-4000:]
    priorities = planned_priorities(result)
    cases = ("linear", "sphere", "gmm")

    def of(rule, model=None):
        return [priorities[rule, f"case={case}, L=500" + (f", model={model}" if model else "")] for case in cases]

    assert min(of("sample_prompts")) > max(of("train_ensemble", "softmax"))
    assert min(of("train_ensemble", "softmax")) > max(of("evaluate_bayes")) > max(of("train_ensemble", "linear"))
    assert min(of("train_ensemble", "linear")) > priorities["plot_fig3", ""]


def test_fig3_targets_are_built(smoke_run):
    table = pd.read_parquet(smoke_run / "figures" / "fig3.parquet")
    required = {"case", "model", "seed", "alpha", "beta", "final_train_mse", "final_test_mse", "bayes_mse", "zero_mse"}
    assert required <= set(table.columns)
    assert len(table) == 3 * 2 * 2
    assert set(table["case"]) == {"linear", "sphere", "gmm"} and set(table["model"]) == {"linear", "softmax"}
    assert table[list(required - {"case", "model"})].notna().all().all()


def test_every_parquet_records_its_provenance(smoke_run):
    files = list((smoke_run / "results").rglob("*.parquet")) + list((smoke_run / "figures").glob("*.parquet"))
    # datasets 10, closed forms 12 (every case + the L = 10 sweep point), training 2 × 14, trained scores 9,
    # landscapes 2, figure tables 12, leaderboard 1, the all-token study's results 11, the mssa study's 18
    # (sweep 2, 6 × 2 regression runs, 2 baselines, training curves, leaderboard scores), the memory study's 19
    # (capacity and curves for 3 maps, low rank, MLP at 2 d, the 3 stacked tables, Zipf at 2 α and stacked, 4 induction runs)
    assert len(files) == 10 + 12 + 28 + 9 + 2 + 12 + 1 + 11 + 18 + 19
    for path in files:
        metadata = read_metadata(path)
        assert metadata["params"] and metadata["package_version"] and metadata["git_commit"]


def test_benchmark_files_for_every_compute_rule(smoke_run):
    rules = {path.parent.name if path.parent.name != "benchmarks" else path.stem for path in (smoke_run / "benchmarks").rglob("*.tsv")}
    compute_rules = {"sample_prompts", "evaluate_bayes", "evaluate_trained", "train_ensemble", "build_leaderboard",
                     "evaluate_example_prompts", "summarise_training_runs", "summarise_context_sweep", "evaluate_subspace_shift",
                     "scan_energy_landscape", "evaluate_descent_steps", "scan_loss_landscape", "compare_learned_structure",
                     "onelayer_claims"}
    assert compute_rules | {f"plot_{figure}" for figure in FIGURES} <= rules


def test_nothing_to_do_after_a_complete_run(smoke_run):
    result = snakemake(smoke_run, "-n", "all")
    assert result.returncode == 0
    assert planned_outputs(result) == set()


def test_changing_one_case_reruns_only_what_depends_on_it(smoke_run):
    config = yaml.safe_load((smoke_run / "config" / "smoke.yaml").read_text())
    config["cases"]["sphere"]["corruption"]["sigma_z_sq"] = 0.2
    (smoke_run / "changed.yaml").write_text(yaml.safe_dump(config))
    result = snakemake(smoke_run, "-n", "all", configfile="changed.yaml")
    assert result.returncode == 0, result.stderr
    assert planned_outputs(result) == {
        "results/datasets/sphere/L20.parquet",
        "results/bayes/sphere/L20.parquet",
        *(f"results/train/sphere/L20/{model}/{kind}.parquet" for model in ("linear", "softmax") for kind in ("losses", "weights")),
        "results/trained_scores/sphere/L20.parquet",
        "figures/fig3.parquet", "figures/fig3.pdf", "figures/fig7.pdf",
        *(f"results/landscape/{case}.parquet" for case in ("sphere", "gmm")),  # both read figures/fig3.parquet
        "figures/fig6.pdf", "figures/claims.parquet", "figures/claims.md",
        "figures/leaderboard.parquet", "figures/leaderboard.md",
        # every ledger names the merged config it was built from (its sha256), so a config change rebuilds it
        "figures/alltoken/claims.parquet", "figures/alltoken/claims.md",
        "figures/mssa/claims.parquet", "figures/mssa/claims.md",
        "figures/memory/claims.parquet", "figures/memory/claims.md",
    }


def test_retraining_gives_bit_identical_parquet(smoke_run):
    outputs = [smoke_run / "results/train/gmm/L20/softmax" / f"{kind}.parquet" for kind in ("losses", "weights")]
    before = [path.read_bytes() for path in outputs]
    result = snakemake(smoke_run, "--force", str(outputs[0].relative_to(smoke_run)))
    assert result.returncode == 0, result.stderr[-4000:]
    assert [path.read_bytes() for path in outputs] == before


BAD_CONFIGS = {
    "d_above_n": (("cases", "linear", "d"), 9, "cases.linear.d"),
    "negative_variance": (("cases", "gmm", "sigma0_sq"), -0.5, "cases.gmm.sigma0_sq"),
    "unknown_task": (("cases", "torus"), {"task": "torus", "n": 3}, "cases.torus.task"),
    "misspelt_key": (("training", "learning_rate"), 0.01, "'learning_rate' was unexpected"),
    "zero_context": (("cases", "sphere", "L"), 0, "cases.sphere.L"),
    "unknown_corruption": (("cases", "sphere", "corruption", "kind"), "blur", "cases.sphere.corruption.kind"),
}


@pytest.mark.parametrize("name", BAD_CONFIGS)
def test_bad_config_stops_before_any_job(repo, tmp_path, name):
    workdir = copy_workflow(repo, tmp_path / "workflow")
    path, value, message = BAD_CONFIGS[name]
    config = yaml.safe_load((workdir / "config" / "smoke.yaml").read_text())
    node = config
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    (workdir / "bad.yaml").write_text(yaml.safe_dump(config))
    result = snakemake(workdir, "figures/fig3.pdf", configfile="bad.yaml")
    assert result.returncode != 0
    assert "invalid configuration" in result.stderr and message in result.stderr
    assert not (workdir / "results").exists()


def test_lint_is_clean(repo):
    result = subprocess.run([SNAKEMAKE, "--lint"], cwd=repo, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0
    assert "Lints for" not in result.stdout + result.stderr


def test_report_is_built(smoke_run):
    result = snakemake(smoke_run, "--report", "report.html")
    assert result.returncode == 0, result.stderr[-4000:]
    html = (smoke_run / "report.html").read_text()
    assert "Figure 3 of Smart" in html and "L = 20 in the linear case" in html
    assert "Built from config/config.yaml + config/smoke.yaml" in html
    for caption in ("Figure 1(b) of Smart", "Figure 2 of Smart", "Figure 4(a) of Smart", "Figure 4(b) of Smart",
                    "Figure 5 of Smart", "Figure 6 of Smart", "Figure 7 of Smart", "Figure 8 of Smart", "The claims ledger",
                    "The common leaderboard"):
        assert caption in html, caption


def test_the_ledger_names_its_config_and_the_report_refuses_another(smoke_run):
    text = (smoke_run / "figures" / "claims.md").read_text()
    assert "Config: `config/config.yaml` (sha256 " in text and "`config/smoke.yaml` (sha256 " in text
    result = subprocess.run([SNAKEMAKE, "--report", "other.html", "--cores", "1"], cwd=smoke_run, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode != 0 and not (smoke_run / "other.html").exists()
    assert "figures/claims.parquet: built from config/config.yaml + config/smoke.yaml" in result.stderr
    assert "give the same --configfile to --report" in result.stderr


def test_a_local_run_never_has_more_jobs_running_than_the_machine_has_cores(smoke_run):
    """The smoke run asked for -j 8; each of its jobs has one thread."""
    from icdenoise.resources import machine_cores

    cores = machine_cores()
    log = (smoke_run / "snakemake.stderr").read_text()
    assert 1 <= most_jobs_at_once(log) <= min(8, cores)
    if cores < 8:
        assert f"--cores/-j 8 is more than the {cores} cores this machine has" in log
