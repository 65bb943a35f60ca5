"""Regeneration you can trust, with the real snakemake: code-aware re-runs, bad values stopped before
any job, interrupted jobs, provenance back to the dataset, and a report of whatever is built."""

import html
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from runner import (
    EXPERIMENT_CONFIGS,
    SMOKE,
    SNAKEMAKE,
    copy_workflow,
    parsed_rules,
    planned_blocks,
    planned_outputs,
    smoke_target,
    snakemake,
)

pytestmark = pytest.mark.integration

TARGETS = [smoke_target("figures/fig3.pdf"), smoke_target("figures/fig4b.pdf")]


def run(workdir: Path, *args: str, configfile: str = "config/smoke.yaml") -> subprocess.CompletedProcess:
    """snakemake with the workflow copy's own package (PYTHONPATH), so that its source can be edited."""
    environment = {**os.environ, "PYTHONPATH": str(workdir / "src")}
    return subprocess.run([SNAKEMAKE, *args, "--cores", "2", "--configfile", configfile], cwd=workdir,
                          capture_output=True, text=True, timeout=900, env=environment)


@pytest.fixture(scope="module")
def built(repo, tmp_path_factory):
    """Figures 3 and 4(b) of the smoke config, built by a copy of the workflow and of the package."""
    workdir = copy_workflow(repo, tmp_path_factory.mktemp("regeneration") / "workflow")
    shutil.copytree(repo / "src", workdir / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    result = run(workdir, *TARGETS)
    assert result.returncode == 0, result.stderr[-4000:]
    return workdir


def edit(*paths: Path) -> None:
    """Change each file's content (and so its modification time)."""
    time.sleep(1.1)  # past the outputs' modification times, whatever the file system's resolution
    for path in paths:
        path.write_text(path.read_text() + "\n# edited\n")


def plan_after_edit(workdir: Path, *modules: str) -> subprocess.CompletedProcess:
    """The dry run of TARGETS with every module of `modules` edited at once; the edits are reverted after it."""
    sources = [workdir / "src" / "icdenoise" / module for module in modules]
    originals = [source.read_text() for source in sources]
    edit(*sources)
    try:
        return run(workdir, "-n", *TARGETS)
    finally:
        for source, original in zip(sources, originals):
            source.write_text(original)
        assert run(workdir, "--touch", *TARGETS).returncode == 0  # the reverted edit: outputs are current again


def test_editing_a_bayes_estimator_reruns_the_bayes_jobs_and_what_uses_them_only(built):
    result = plan_after_edit(built, "maths/bayes.py")
    assert result.returncode == 0, result.stderr[-3000:]
    planned = planned_outputs(result)
    assert {smoke_target(f"results/bayes/{case}/L20.parquet") for case in ("linear", "sphere", "gmm")} <= planned
    assert {smoke_target("figures/fig3.parquet"), smoke_target("figures/fig3.pdf")} <= planned
    assert not any(path.startswith((smoke_target("results/datasets/"), smoke_target("results/train/"))) for path in planned)
    assert "reason: Updated input files:" in result.stdout and "src/icdenoise/maths/bayes.py" in result.stdout


DRAWING_IMPORTS = """
import importlib, json, sys
loaded = {}
for drawing in sys.argv[1:]:
    for name in [name for name in sys.modules if name.split(".")[0] == "icdenoise"]:
        del sys.modules[name]
    importlib.import_module(drawing)
    loaded[drawing] = [module.__file__ for name, module in sys.modules.items() if name.split(".")[0] == "icdenoise"]
print(json.dumps(loaded))
"""  # drawing module → the files of the package that importing it alone runs (its own, its package's, what it imports)
SHARED_LOOK = "icdenoise/records/figures.py"  # plot_figure.py imports it for every figure, whatever its drawing


def test_editing_any_drawing_module_reruns_exactly_the_figures_that_draw_with_it(experiments_run, repo, tmp_path):
    """docs/reproducibility.md and README.md's figure table: editing a figure's drawing module re-renders the figures
    whose drawing imports it, and no other job. Every file of every figure rule's plots package (the studies', the
    sweeps' and the comparison's, all built in `experiments_run`) and the shared look are edited at once, in a copy
    with its own package, and one dry run names, for each job it plans, the edited files that make it rerun; as no
    job reruns for another reason (no job upstream of a figure, none using one), each file's jobs are those its
    edit alone would rerun. They must be the figure rules whose drawing module, imported alone, runs that file, and
    for the shared look every figure rule (the plot script imports it).
    The copy's modules lie at other paths than those its runs recorded, which Snakemake's `input` trigger would
    count as a change of every job; an edit changes a file's content and time only, so the plan is asked with the
    one trigger an edit fires, `mtime` (Snakemake's `code` trigger, too, follows a script by its time)."""
    workdir = tmp_path / "workflow"
    shutil.copytree(experiments_run["workdir"], workdir, symlinks=True)
    shutil.copytree(repo / "src", workdir / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))  # times kept
    source = (workdir / "src").resolve()
    environment = {**os.environ, "PYTHONPATH": str(source), "ICDENOISE_WARMSTART": "0"}
    rules = parsed_rules(workdir, EXPERIMENT_CONFIGS, env=environment)
    drawings = {name: rule["params"]["drawing"] for name, rule in rules.items() if "drawing" in rule["params"]}
    imported = subprocess.run([sys.executable, "-c", DRAWING_IMPORTS, *sorted(set(drawings.values()))],
                              capture_output=True, text=True, env=environment, timeout=300)
    assert imported.returncode == 0, imported.stderr[-3000:]
    runs = {drawing: {Path(file).resolve() for file in files} for drawing, files in json.loads(imported.stdout).items()}
    packages = {source.joinpath(*drawing.split(".")).parent for drawing in drawings.values()}
    edited = sorted({*(file for package in packages for file in package.glob("*.py")), source / SHARED_LOOK})
    own = {source.joinpath(*drawing.split(".")).with_suffix(".py") for drawing in drawings.values()}
    assert len(drawings) > 30 and own <= set(edited)
    expected = {file: {rule for rule, drawing in drawings.items() if file in runs[drawing]} for file in edited}
    expected[source / SHARED_LOOK] = set(drawings)

    edit(*edited)
    plan = snakemake(workdir, "-n", "all", "sweeps", "comparison", "mssa_lr_grid", "--rerun-triggers", "mtime",  # options after targets:
                     configfile=EXPERIMENT_CONFIGS, env=environment)  # --rerun-triggers takes several values
    assert plan.returncode == 0, plan.stderr[-3000:]
    jobs = [(job["rule"], job["output"].split(", "), job.get("reason", "")) for job in planned_blocks(plan) if "output" in job]
    other = [job for job in jobs if job[0] not in drawings or not job[2].startswith("Updated input files: ") or ";" in job[2]]
    assert not other, other[:3]  # only figures, each for its edited code alone
    updated = [(rule, {Path(path).resolve() for path in reason.split(": ", 1)[1].split(", ")}) for rule, _, reason in jobs]
    reran = {file: {rule for rule, files in updated if file in files} for file in edited}
    assert reran == expected, {file.relative_to(source).as_posix(): dict(reran=reran[file], expected=expected[file])
                               for file in edited if reran[file] != expected[file]}
    figures = {path.relative_to(workdir).as_posix() for path in (workdir / SMOKE / "figures").rglob("*.pdf")}
    assert {path for _, outputs, _ in jobs for path in outputs if path.endswith(".pdf")} == figures  # each job of each rule


PLUMBING = [
    "pipeline/warmstart.py",  # the warm start
    "pipeline/joblog.py",  # a log line
    "pipeline/resources.py",  # the shared stages' job sizes
    "studies/onelayer/sizes.py",  # a study's job sizes
    "pipeline/cluster.py",  # cluster placement
    "pipeline/config.py",  # the config's checks
]


def test_editing_the_plumbing_reruns_no_job(built):
    """All of PLUMBING edited at once, in one dry run: a job that any one edit would rerun is planned by them
    together, so no job planned means that no single edit reruns one either."""
    result = plan_after_edit(built, *PLUMBING)
    assert result.returncode == 0, result.stderr[-3000:]
    assert planned_outputs(result) == set(), result.stdout[-3000:]


def test_summary_says_what_an_edit_leaves_pending(built):
    source = built / "src" / "icdenoise" / "studies" / "onelayer" / "plots" / "fig3.py"
    original = source.read_text()
    edit(source)
    try:
        result = run(built, "--summary", *TARGETS)
    finally:
        source.write_text(original)
        assert run(built, "--touch", *TARGETS).returncode == 0
    rows = {line.split("\t")[0]: line for line in result.stdout.splitlines() if "\t" in line}
    assert rows[smoke_target("figures/fig3.pdf")].endswith("update pending")
    assert rows[smoke_target("results/datasets/linear/L20.parquet")].endswith("no update")


def test_a_bad_value_stops_before_any_job_and_destroys_nothing(built):
    config = yaml.safe_load((built / "config" / "smoke.yaml").read_text())
    config["cases"]["linear"]["corruption"]["sigma_z_sq"] = float("nan")
    config["cases"]["linear"]["n"] = 4.0
    (built / "bad.yaml").write_text(yaml.safe_dump(config))
    before = {path: path.stat().st_mtime for path in (built / SMOKE / "results").rglob("*.parquet")}
    result = run(built, "--forceall", *TARGETS, configfile="bad.yaml")
    assert result.returncode != 0
    assert "cases.linear.corruption.sigma_z_sq: nan is not a finite number" in result.stderr
    assert "cases.linear.n: 4.0 is not of type 'integer'" in result.stderr
    assert {path: path.stat().st_mtime for path in (built / SMOKE / "results").rglob("*.parquet")} == before


def test_a_yaml_error_in_the_workflows_config_names_its_file_and_line(built, tmp_path):
    workdir = copy_workflow(built, tmp_path / "workflow")
    config = workdir / "config" / "config.yaml"
    config.write_text(config.read_text().replace("  n_train: 800", "  n_train: [800"))
    result = snakemake(workdir, "-n", "figures/fig3.pdf")
    assert result.returncode != 0
    output = result.stdout + result.stderr  # Snakemake prints an error raised while parsing to either
    assert "config/config.yaml, line" in output and "not valid YAML" in output


def test_an_interrupted_training_job_leaves_no_output_and_reruns_cleanly(built):
    config = yaml.safe_load((built / "config" / "smoke.yaml").read_text())
    config["training"]["epochs"]["gmm"] = 4000  # long enough to be interrupted
    (built / "long.yaml").write_text(yaml.safe_dump(config))
    target = smoke_target("results/train/gmm/L20/softmax/losses.parquet")
    command = [SNAKEMAKE, target, "--cores", "1", "--configfile", "long.yaml"]
    environment = {**os.environ, "PYTHONPATH": str(built / "src")}
    log = built / SMOKE / "logs" / "train_ensemble" / "case=gmm,L=20,model=softmax.log"
    log.unlink()
    # SIGINT back to its default: a shell's background job (`.ci/run &`) starts with it ignored, and the
    # run would then finish instead of being interrupted
    process = subprocess.Popen(command, cwd=built, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.time() + 120
    while time.time() < deadline and not (log.is_file() and "epoch" in log.read_text()):
        time.sleep(0.5)
    os.killpg(process.pid, signal.SIGINT)
    assert process.wait(timeout=120) != 0
    outputs = [built / SMOKE / "results/train/gmm/L20/softmax" / name for name in ("losses.parquet", "weights.parquet")]
    assert not any(path.exists() for path in outputs)
    assert not list((built / SMOKE / "results/train/gmm/L20/softmax").glob(".*.tmp"))
    result = run(built, target)  # the smoke config again: the job completes
    assert result.returncode == 0, result.stderr[-3000:]
    assert all(path.exists() for path in outputs)


def test_provenance_traces_figure_3_back_to_its_noise_variance(built):
    result = subprocess.run([sys.executable, "-m", "icdenoise.records.provenance", smoke_target("figures/fig3.parquet"), "--find", "sigma_z_sq"],
                            cwd=built, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(built / "src")})
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(smoke_target("figures/fig3.parquet: rule summarise_training_runs; run smoke; commit "))
    assert smoke_target("results/datasets/gmm/L20.parquet: rule sample_prompts (L=20, case=gmm); run smoke") in result.stdout
    assert "case.corruption.sigma_z_sq = 0.1" in result.stdout
    assert "code: " in result.stdout and "CHANGED" not in result.stdout


def front_page_text(report: str) -> str:
    """The text of a report's front page (the workflow description it embeds as JSON), without its HTML tags."""
    description = json.loads(re.search(r"var workflow_desc = (.*);$", report, flags=re.MULTILINE).group(1))
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", description)).split())


def test_a_report_of_a_partial_build_shows_what_is_built_and_says_how_to_build_the_rest(built):
    """`snakemake --report` with only Figures 3 and 4(b) of the smoke run built (as after the README's quick start):
    Snakemake's report stops at a file flagged for it that does not exist, so under --report the target rules give it
    the built targets alone (a partial report). It shows those figures; its front page names every item not built
    yet with the command that builds its part, and each study's ledger as not built. Asking for the sweeps and the
    comparison, none of them built, fails no more."""
    result = run(built, "--report", "report.html")
    assert result.returncode == 0, result.stderr[-3000:]
    page = (built / "report.html").read_text()
    assert "Figure 3 of Smart" in page and "Figure 4(b) of Smart" in page and "Figure 1(b) of Smart" not in page
    front = front_page_text(page)
    assert "Not built yet" in front and "onelayer: fig1, fig2, fig4a, fig5, theorem31, fig6, fig7, fig8, claims —" in front
    assert "ledger not built yet" in front and "snakemake --cores 2 onelayer --configfile config/smoke.yaml" in front
    assert re.search(r"leaderboard: leaderboard — \S*snakemake --cores 2 leaderboard --configfile config/smoke.yaml", front)
    everything = run(built, "--report", "everything.html", "all", "sweeps", "comparison")
    assert everything.returncode == 0, everything.stderr[-3000:]
