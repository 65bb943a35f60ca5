"""The real `snakemake` command on a temporary copy of the workflow with the smoke config."""

import json
import re
import shutil

import pandas as pd
import pytest
import yaml
from pins import PINS, key_outputs
from runner import (
    LEDGER_FIGURES,
    SMOKE,
    copy_workflow,
    figure_files,
    merged_config,
    most_jobs_at_once,
    planned_jobs,
    planned_outputs,
    planned_priorities,
    smoke_target,
    snakemake,
)

from icdenoise.pipeline.config import load_yaml, validate_config
from icdenoise.pipeline.joblog import RUNS_IN
from icdenoise.pipeline.named_runs import FOLDERS
from icdenoise.records.artifacts import read_metadata
from icdenoise.records.claims import VERDICTS

pytestmark = pytest.mark.integration

FIGURES = ["fig1", "fig2", "fig3", "fig4a", "fig4b", "fig5", "fig6", "fig7", "fig8"]  # the mission's targets


@pytest.fixture(scope="module")
def smoke_dry_run(repo, tmp_path_factory):
    """The smoke config's `all` as a dry run from nothing plans it."""
    workdir = copy_workflow(repo, tmp_path_factory.mktemp("plan") / "workflow")
    result = snakemake(workdir, "-n", "all")
    assert result.returncode == 0, result.stderr[-4000:]
    return result


@pytest.fixture(scope="module")
def smoke_plan(smoke_dry_run):
    """Every job of the smoke config's `all` that writes a file: (rule, outputs)."""
    return planned_jobs(smoke_dry_run)


def test_the_readme_counts_the_smoke_alls_jobs(smoke_dry_run, repo):
    """README.md's "its `all` is N jobs" is the dry run's total (its job stats, the target rules included)."""
    (stated,) = re.findall(r"its `all` is (\d+) jobs", " ".join((repo / "README.md").read_text().split()))
    totals = set(re.findall(r"^total\s+(\d+)$", smoke_dry_run.stdout + smoke_dry_run.stderr, flags=re.MULTILINE))
    assert totals == {stated}  # Snakemake prints its job stats more than once


def test_every_figure_and_every_ledger_of_every_registered_study_is_built(smoke_run, smoke_plan, repo):
    config = load_yaml(repo / "config" / "config.yaml")
    studies = validate_config(config, repo / "workflow" / "schemas")
    assert [rule for rule, _ in smoke_plan if rule.startswith("write_") and rule.endswith("_ledger")] \
        and {rule for rule, _ in smoke_plan if rule.endswith("_ledger")} == {f"write_{name}_ledger" for name in studies}
    drawn = [path for rule, outputs in smoke_plan if rule.startswith("plot_") for path in outputs]
    pdfs = [path for path in drawn if path.endswith(".pdf")]
    assert {smoke_target(f"figures/{figure}.pdf") for figure in FIGURES} <= set(pdfs)
    assert sorted(drawn) == sorted([*pdfs, *(pdf[: -len("pdf")] + "png" for pdf in pdfs)])  # each PDF has its PNG beside it
    for pdf in pdfs:
        assert (smoke_run / pdf).read_bytes().startswith(b"%PDF") and (smoke_run / pdf).stat().st_size > 5000, pdf
        assert (smoke_run / pdf).with_suffix(".png").read_bytes().startswith(b"\x89PNG"), pdf
    for name, study in studies.items():
        (outputs,) = [outputs for rule, outputs in smoke_plan if rule == f"write_{name}_ledger"]
        table, text, page = (next(path for path in outputs if path.endswith(suffix)) for suffix in (".parquet", ".md", ".html"))
        ledger = pd.read_parquet(smoke_run / table)
        assert set(ledger["claim"]) == set(config[name]["claims"]) <= set(study.claims)
        undecided = ledger["verdict"] == "INCONCLUSIVE"
        valueless = ledger[["ours_mean", "ours_min", "ours_max"]].isna().any(axis=1)
        assert set(ledger["verdict"]) <= set(VERDICTS) and not (valueless & ~undecided).any()  # no value: undecided
        assert (ledger.loc[undecided, "why_inconclusive"] != "").all() and (ledger.loc[~undecided, "why_inconclusive"] == "").all()
        assert ledger["defined_in"].str.len().gt(0).all()
        verdicts, registration = (smoke_run / text).read_text().split("\n## Registration\n")
        verdicts, adjusted = verdicts.split("\n## Family-wise adjustment (Holm)\n")
        claims = len(config[name]["claims"])
        assert verdicts.count("\n| `") == adjusted.count("\n| `") == registration.count("\n| `") == claims  # a row per claim in each
        assert (smoke_run / page).read_text().count("<tr><td><code>") == 3 * claims  # all three tables


def test_smoke_outputs_equal_their_pins(smoke_run):
    """Trained values within 1e-5 relative (float32 training may round differently on another CPU),
    closed forms (float64) within 1e-9."""
    pinned, measured = json.loads(PINS.read_text()), key_outputs(smoke_run)
    assert set(measured) == set(pinned)
    for key, value in pinned.items():
        tolerance = 1e-9 if key.startswith("bayes/") else 1e-5
        assert measured[key] == pytest.approx(value, rel=tolerance, abs=1e-12), key


def test_every_job_of_the_local_run_ran_in_a_warm_copy_and_every_copy_was_accounted_for(smoke_run, smoke_plan):
    """The smoke config's jobs all have one thread, so each is handed over (icdenoise.pipeline.warmstart):
    the pinned outputs above were computed in the copies. The server logged how every copy ended before
    it exited, however late the last copies ended."""
    log = (smoke_run / "warmstart.log").read_text()
    started = re.findall(r"^\S+ \S+\.py: runs in copy (\d+)$", log, flags=re.M)
    ended = dict(re.findall(r"^\S+ copy (\d+) ended with status (-?\d+) ", log, flags=re.M))
    jobs = [rule for rule, _ in smoke_plan if rule != "all"]
    assert len(started) == len(jobs) and set(started) == set(ended)
    assert all(status == "0" for status in ended.values())
    job_logs = list((smoke_run / SMOKE / "logs").rglob("*.log"))
    assert len(job_logs) == len(jobs)
    assert all(path.read_text().split("\n", 1)[0].split("] ", 1)[1].startswith(f"{RUNS_IN}in a warm-start copy") for path in job_logs)


def test_leaderboard_scores_every_case_with_every_denoiser_that_applies(smoke_run):
    board = pd.read_parquet(smoke_run / SMOKE / "figures" / "leaderboard.parquet")
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
    assert "## gmm_all_tokens (gmm task, all_tokens corruption, L = 16)" in (smoke_run / SMOKE / "figures" / "leaderboard.md").read_text()


def test_figure_tables_have_their_columns(smoke_run):
    figures = smoke_run / SMOKE / "figures"
    sweep = pd.read_parquet(figures / "fig4a.parquet")
    assert set(sweep["L"]) == {10, 20} and {"gamma", "gamma_star", "best_test_mse", "oracle_test_mse", "excess_mse"} <= set(sweep.columns)
    shift = pd.read_parquet(figures / "fig4b.parquet")
    assert set(shift["d_prime"]) == {1, 2, 3} and set(shift["stage"]) == {"initial", "final"}
    steps = pd.read_parquet(figures / "fig5_steps.parquet")
    assert list(steps.loc[steps["estimator"] == "descent", "steps"]) == [0, 1, 10]
    grid = pd.read_parquet(figures / "fig5_landscape.parquet")
    assert len(grid) == 20 * 20
    landscape = pd.read_parquet(smoke_run / SMOKE / "results" / "landscape" / "sphere.parquet")
    assert (landscape["kind"] == "grid").sum() == 36 and set(landscape["kind"]) == {"grid", "heuristic", "trained", "minimum"}
    assert (landscape["alpha"] < 0).any() and (landscape["beta"] < 0).any()
    similarity = pd.read_parquet(figures / "fig8_similarity.parquet")
    assert set(similarity["model"]) == {"linear", "softmax"} and similarity["cosine"].between(-1, 1).all()
    points = pd.read_parquet(figures / "fig1.parquet")
    assert set(points["case"]) == {"linear_3d", "sphere_3d", "gmm_3d"}
    assert {"context", "query", "target", "bayes", "model", "projection"} <= set(points["kind"])


def test_the_memory_study_builds_its_fits_and_ledger(smoke_run, repo):
    figures = smoke_run / SMOKE / "figures" / "memory"
    for figure in ("capacity_curves", "capacity_fit", "gradient_step", "variance", "width", "zipf_n", "zipf_d", "zipf_optimum", "induction"):
        assert (figures / f"{figure}.pdf").read_bytes().startswith(b"%PDF"), figure
    fits = pd.read_parquet(figures / "capacity_fit.parquet")
    assert {"map", "slope", "ci_low", "ci_high"} <= set(fits.columns) and {"injective", "binary"} <= set(fits["map"])
    fitted = fits[fits["slope"].notna()]  # a per-d fit of a d with fewer than 3 points is NaN
    assert (fitted["ci_low"] < fitted["slope"]).all() and (fitted["slope"] < fitted["ci_high"]).all()
    assert (fits.loc[fits["slope"].isna(), "points"] < 3).all() and fits.loc[fits["against"] != "m", "slope"].notna().all()
    ledger = pd.read_parquet(figures / "claims.parquet")
    assert set(ledger["claim"]) == set(yaml.safe_load((repo / "config" / "config.yaml").read_text())["memory"]["claims"])
    induction = pd.read_parquet(figures / "induction.parquet")
    assert set(zip(induction["layers"], induction["optimizer"])) == {(1, "adam"), (1, "sgd"), (2, "adam"), (2, "sgd")}


def test_the_mssa_study_builds_its_vision_tables_figures_and_claims(smoke_run, smoke_plan, repo):
    """Every vision model trains from every smoke seed, its tables stack them, both figures are drawn, and the mssa
    ledger has a row for each vision claim."""
    vision = merged_config(repo)["mssa"]["vision"]
    runs = {(model, seed) for model in vision["models"] for seed in vision["seeds"]}
    planned = [outputs for rule, outputs in smoke_plan if rule == "train_mssa_vision"]
    assert len(planned) == len(runs)
    figures = smoke_run / SMOKE / "figures" / "mssa"
    accuracy = pd.read_parquet(figures / "vision.parquet")
    assert set(zip(accuracy["model"], accuracy["seed"])) == runs and accuracy["test_accuracy"].between(0, 1).all()
    assert (accuracy.groupby("model")["parameters"].nunique() == 1).all()
    attention = pd.read_parquet(figures / "vision_attention.parquet")
    assert set(attention["label"]) == set(vision["attention_digits"]) and set(zip(attention["model"], attention["seed"])) == runs
    assert (attention["layer"] == attention["layers"] - 2).all()
    curves = pd.read_parquet(smoke_run / SMOKE / "results" / "mssa" / "vision_training.parquet")
    assert curves.groupby(["model", "seed"])["step"].max().eq(vision["steps"] - 1).all()
    for figure in ("vision_accuracy", "vision_attention"):
        assert (figures / f"{figure}.pdf").read_bytes().startswith(b"%PDF"), figure
    ledger = pd.read_parquet(figures / "claims.parquet")
    assert {claim for claim in ledger["claim"] if claim.startswith("vision_")} == \
        {claim for claim in merged_config(repo)["mssa"]["claims"] if claim.startswith("vision_")} != set()


def test_every_training_run_is_planned_once(repo, smoke_plan):
    """One training job per (case, L, model) the studies and the leaderboard need (their `runs`): runs
    shared by several figures (Figs. 3, 4(b), 6, 7, 4(a)'s own L, the leaderboard) are trained once."""
    from icdenoise.pipeline.config import all_runs

    from icdenoise.pipeline.registry import Run
    from icdenoise.pipeline.sweeps import shared_points, study_sweeps, sweep_points, with_study_sweeps

    config = merged_config(repo)
    studies = validate_config(config, repo / "workflow" / "schemas")
    runs = all_runs(config, studies)
    points = {name: point for name, point in sweep_points(with_study_sweeps(config, studies)).items()
              if point.sweep in study_sweeps(config, studies)}  # a study's own sweep is part of `all` (onelayer.datasets)
    shared = shared_points(config, points, runs)
    runs |= {Run(name, model, point.case["L"]) for name, point in points.items() if name not in shared for model in point.models}
    trained = [outputs[0] for rule, outputs in smoke_plan if rule == "train_ensemble"]
    assert len(trained) == len(set(trained)) == len(runs) > 10
    assert set(trained) == {smoke_target(f"results/train/{run.case}/L{run.L}/{run.model}/losses.parquet") for run in runs}


def test_figure_3_jobs_start_longest_first(repo, tmp_path):
    """Among ready jobs the longest starts first (icdenoise.pipeline.resources' estimates): with the paper's
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
    table = pd.read_parquet(smoke_run / SMOKE / "figures" / "fig3.parquet")
    required = {"case", "model", "seed", "alpha", "beta", "final_train_mse", "final_test_mse", "bayes_mse", "zero_mse"}
    assert required <= set(table.columns)
    assert len(table) == 3 * 2 * 2
    assert set(table["case"]) == {"linear", "sphere", "gmm"} and set(table["model"]) == {"linear", "softmax"}
    assert table[list(required - {"case", "model"})].notna().all().all()


def test_every_parquet_is_planned_and_records_its_provenance(smoke_run, smoke_plan):
    files = {str(path.relative_to(smoke_run)) for folder in ("results", "figures") for path in (smoke_run / SMOKE / folder).rglob("*.parquet")}
    assert files == {path for _, outputs in smoke_plan for path in outputs if path.endswith(".parquet")}
    for path in files:
        metadata = read_metadata(smoke_run / path)
        assert metadata["params"] and metadata["package_version"] and metadata["git_commit"] and metadata["run"] == "smoke"


def test_every_job_has_its_log_and_benchmark_under_one_path_scheme(smoke_run, smoke_plan):
    """logs/<rule>[/<wildcard>=<value>,…].log and the same path under benchmarks/ (.tsv): one per job."""
    from icdenoise.pipeline.joblog import job_of

    logs = {path.relative_to(smoke_run / SMOKE / "logs").with_suffix("") for path in (smoke_run / SMOKE / "logs").rglob("*.log")}
    benchmarks = {path.relative_to(smoke_run / SMOKE / "benchmarks").with_suffix("") for path in (smoke_run / SMOKE / "benchmarks").rglob("*.tsv")}
    assert logs == benchmarks
    assert sorted(job_of(path)[0] for path in logs) == sorted(rule for rule, _ in smoke_plan if rule != "all")


def test_nothing_to_do_after_a_complete_run(smoke_run):
    result = snakemake(smoke_run, "-n", "all")
    assert result.returncode == 0
    assert planned_outputs(result) == set()


def test_changing_how_jobs_run_reruns_nothing(smoke_run):
    """The execution block (devices, threads, chunk sizes, cluster requests, the warm start) is never a job's
    param, and no digest a job or a ledger records includes it: after a complete run, a config file merged on
    top that changes every one of its keys plans no job."""
    config = {}
    config["execution"] = {
        "warm_start": False, "training": {"device": "auto", "threads": 2}, "evaluation": {"chunk_size": 777, "threads": 2},
        "onelayer": {"theorem31": {"chunk_size": 13}}, "memory": {"induction": {"device": "auto"}, "planted": {"chunk_floats": 4096},
                                                                   "resources": {"mem_mb": 900, "runtime_minutes": 3}},
        "mssa": {"regression": {"device": "auto", "resources": {"mem_mb": 900, "runtime_minutes": 3}}},
    }
    (smoke_run / "execution.yaml").write_text(yaml.safe_dump(config))
    result = snakemake(smoke_run, "-n", "all", configfile=["config/smoke.yaml", "execution.yaml"])
    assert result.returncode == 0, result.stderr
    assert planned_outputs(result) == set()


def test_changing_one_case_reruns_only_what_depends_on_it_and_the_ledgers(smoke_run, smoke_plan):
    """The case's data, trainings and scores, every ledger and the leaderboard (each names the merged config it
    was built from, its sha256, so any config change rebuilds them, seconds each), and the figures: the core
    study's every figure, whose footer lists the settings of the shared blocks it reads that differ from the
    paper's, and the figures that draw a ledger."""
    config = yaml.safe_load((smoke_run / "config" / "smoke.yaml").read_text())
    config["cases"]["sphere"]["corruption"]["sigma_z_sq"] = 0.2
    (smoke_run / "changed.yaml").write_text(yaml.safe_dump(config))
    result = snakemake(smoke_run, "-n", "all", configfile="changed.yaml")
    assert result.returncode == 0, result.stderr
    ledgers = {path for rule, outputs in smoke_plan if rule.endswith("_ledger") for path in outputs}
    # the sphere case's points of onelayer's own datasets sweep, and that sweep's table
    datasets = {path for rule, outputs in smoke_plan for path in outputs if "/sphere.onelayer_datasets" in path}
    datasets.add(smoke_target("results/sweeps/onelayer_datasets.parquet"))
    onelayer_figures = {path for rule, outputs in smoke_plan if rule.startswith("plot_") for path in outputs
                        if path.count("/") == 3}  # runs/smoke/figures/<figure>: the core study's, in no study folder
    assert planned_outputs(result) == ledgers | set(map(smoke_target, [
        "results/datasets/sphere/L20.parquet",
        "results/bayes/sphere/L20.parquet",
        *(f"results/train/sphere/L20/{model}/{kind}.parquet" for model in ("linear", "softmax") for kind in ("losses", "weights")),
        "results/trained_scores/sphere/L20.parquet",
        "figures/fig3.parquet",
        *(f"results/landscape/{case}.parquet" for case in ("sphere", "gmm")),  # both read figures/fig3.parquet
        *(f"results/landscape_fresh/{case}.parquet" for case in ("sphere", "gmm")),  # and so do these
        "figures/leaderboard.parquet", "figures/leaderboard.md", "figures/leaderboard.html",
        "figures/theorem31.parquet", "figures/theorem31_fit.parquet",  # Theorem 3.1 on the sphere case
    ])) | onelayer_figures | set().union(*map(figure_files, LEDGER_FIGURES)) | datasets


def test_retraining_gives_bit_identical_parquet(smoke_run, tmp_path):
    """In a copy of the smoke run: Snakemake removes a job's outputs before it runs again, and the SLURM test
    may be reading the smoke run's (conftest)."""
    workdir = tmp_path / "workflow"
    shutil.copytree(smoke_run, workdir, symlinks=True)
    outputs = [workdir / SMOKE / "results/train/gmm/L20/softmax" / f"{kind}.parquet" for kind in ("losses", "weights")]
    before = [path.read_bytes() for path in outputs]
    result = snakemake(workdir, "--force", str(outputs[0].relative_to(workdir)))
    assert result.returncode == 0, result.stderr[-4000:]
    assert [path.read_bytes() for path in outputs] == before


def test_a_bad_config_stops_before_any_job_with_every_problem_on_stderr(repo, tmp_path):
    """A schema problem (an unknown key, a run name that is no safe folder name) and a cross-key one, in one file:
    Snakemake prints each and runs nothing, not even into the folder the bad run name points at. Each bad value's
    own message is checked in process (tests/unit/pipeline/test_config.py, test_named_runs.py)."""
    workdir = copy_workflow(repo, tmp_path / "workflow")
    (workdir / "bad.yaml").write_text("run: {name: ../elsewhere}\ncases: {linear: {d: 9}}\ntraining: {learning_rate: 0.01}\n")
    result = snakemake(workdir, "plot_fig3", configfile=["config/smoke.yaml", "bad.yaml"])
    assert result.returncode != 0
    assert "invalid configuration (3 problems)" in result.stderr, result.stderr[-3000:]
    for message in ("run.name: '../elsewhere' does not match", "'learning_rate' was unexpected",
                    "cases.linear.d: 9 exceeds cases.linear.n = 4"):
        assert message in result.stderr, message
    assert not {"runs", "elsewhere", *FOLDERS} & {path.name for path in workdir.iterdir()}  # no run's folder, anywhere


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


def test_the_ledger_names_its_run_and_config_and_the_report_refuses_another_config_of_the_run(smoke_run):
    text = (smoke_run / SMOKE / "figures" / "claims.md").read_text()
    assert "Run `smoke`. Config: `config/config.yaml` (sha256 " in text and "`config/smoke.yaml` (sha256 " in text
    config = yaml.safe_load((smoke_run / "config" / "smoke.yaml").read_text())
    config["evaluation"]["seed"] = 7  # the same run name, another setting
    (smoke_run / "edited.yaml").write_text(yaml.safe_dump(config))
    result = snakemake(smoke_run, "--report", "other.html", configfile="edited.yaml", cores=("--cores", "1"))
    assert result.returncode != 0 and not (smoke_run / "other.html").exists()
    assert "runs/smoke/figures/claims.parquet: built by run 'smoke' from config/config.yaml + config/smoke.yaml" in result.stderr
    assert "give the same --configfile to --report" in result.stderr


def test_a_local_run_never_has_more_jobs_running_than_the_machine_has_cores(smoke_run):
    """The smoke run asked for -j 8; each of its jobs has one thread."""
    from icdenoise.pipeline.resources import machine_cores

    cores = machine_cores()
    log = (smoke_run / "snakemake.stderr").read_text()
    assert 1 <= most_jobs_at_once(log) <= min(8, cores)
    if cores < 8:
        assert f"--cores/-j 8 is more than the {cores} cores this machine has" in log


def test_the_smoke_plan_builds_the_scaled_language_models_every_seed_and_their_figure(smoke_plan, repo):
    """Fig. 5 scaled (mssa.language): the corpus, one training job per model and seed of the smoke config, the three
    tables the ledger and the figure read, and the figure, all in `all`."""
    language = merged_config(repo)["mssa"]["language"]
    trained = sorted(tuple(outputs) for rule, outputs in smoke_plan if rule == "train_mssa_language")
    assert len(trained) == len(language["models"]) * len(language["seeds"])
    planned = {path for _, outputs in smoke_plan for path in outputs}
    assert {smoke_target(f"figures/mssa/language_{table}.parquet") for table in ("curves", "final", "parameters")} <= planned
    assert figure_files("mssa/language") <= planned and smoke_target("results/mssa/language/corpus.parquet") in planned


def test_the_smoke_runs_language_tables_hold_every_model_and_seed_with_counted_parameters(smoke_run, repo):
    final = pd.read_parquet(smoke_run / SMOKE / "figures" / "mssa" / "language_final.parquet")
    language = merged_config(repo)["mssa"]["language"]
    assert sorted(zip(final["model"], final["seed"])) == sorted((m, s) for m in language["models"] for s in language["seeds"])
    parameters = pd.read_parquet(smoke_run / SMOKE / "figures" / "mssa" / "language_parameters.parquet").set_index("model")
    assert (parameters["parameters"] == parameters["parameters_closed_form"]).all()
    assert parameters["has_mlp"].to_dict() == {"mssa": False, "mhsa": False, "transformer": True}
    assert (final["val_loss"] < final["unigram_loss"] * 1.5).all()
