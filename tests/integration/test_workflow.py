"""The real `snakemake` command on a temporary copy of the workflow with the smoke config."""

import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from icdenoise.artifacts import read_metadata

pytestmark = pytest.mark.integration

SNAKEMAKE = str(Path(sys.executable).parent / "snakemake")


def snakemake(workdir: Path, *args: str, configfile: str = "config/smoke.yaml") -> subprocess.CompletedProcess:
    return subprocess.run(
        [SNAKEMAKE, *args, "--cores", "2", "--configfile", configfile],  # --configfile last: it takes several values
        cwd=workdir, capture_output=True, text=True, timeout=600,
    )


def copy_workflow(repo: Path, destination: Path) -> Path:
    destination.mkdir()
    shutil.copy(repo / "Snakefile", destination)
    for folder in ("workflow", "config"):
        shutil.copytree(repo / folder, destination / folder)
    return destination


def planned_outputs(result: subprocess.CompletedProcess) -> set[str]:
    """Output files of the jobs a dry run plans."""
    return {
        path.strip()
        for line in result.stdout.splitlines()
        if line.strip().startswith("output:")
        for path in line.split(":", 1)[1].split(",")
    }


@pytest.fixture(scope="module")
def smoke_run(repo, tmp_path_factory):
    workdir = copy_workflow(repo, tmp_path_factory.mktemp("smoke") / "workflow")
    result = snakemake(workdir, "figures/fig3.pdf")
    assert result.returncode == 0, result.stderr[-4000:]
    return workdir


def test_fig3_targets_are_built(smoke_run):
    pdf = smoke_run / "figures" / "fig3.pdf"
    assert pdf.read_bytes().startswith(b"%PDF") and pdf.stat().st_size > 10000
    table = pd.read_parquet(smoke_run / "figures" / "fig3.parquet")
    required = {"case", "model", "seed", "alpha", "beta", "final_train_mse", "final_test_mse", "bayes_mse", "zero_mse"}
    assert required <= set(table.columns)
    assert len(table) == 3 * 2 * 2
    assert set(table["case"]) == {"linear", "sphere", "gmm"} and set(table["model"]) == {"linear", "softmax"}
    assert table[list(required - {"case", "model"})].notna().all().all()


def test_every_parquet_records_its_provenance(smoke_run):
    files = list((smoke_run / "results").rglob("*.parquet")) + [smoke_run / "figures" / "fig3.parquet"]
    assert len(files) == 3 + 3 + 12 + 1
    for path in files:
        metadata = read_metadata(path)
        assert metadata["params"] and metadata["package_version"] and metadata["git_commit"]


def test_benchmark_files_for_every_compute_rule(smoke_run):
    rules = {path.parent.name if path.parent.name != "benchmarks" else path.stem for path in (smoke_run / "benchmarks").rglob("*.tsv")}
    assert {"sample_prompts", "evaluate_bayes", "train_ensemble", "summarise_fig3", "plot_fig3"} <= rules


def test_nothing_to_do_after_a_complete_run(smoke_run):
    result = snakemake(smoke_run, "-n", "figures/fig3.pdf")
    assert result.returncode == 0
    assert planned_outputs(result) == set()


def test_changing_one_case_reruns_only_that_case_and_the_figure(smoke_run):
    config = yaml.safe_load((smoke_run / "config" / "smoke.yaml").read_text())
    config["cases"]["sphere"]["sigma_z_sq"] = 0.2
    (smoke_run / "changed.yaml").write_text(yaml.safe_dump(config))
    result = snakemake(smoke_run, "-n", "figures/fig3.pdf", configfile="changed.yaml")
    assert result.returncode == 0, result.stderr
    assert planned_outputs(result) == {
        "results/datasets/sphere.parquet",
        "results/bayes/sphere.parquet",
        *(f"results/train/sphere/{model}/{kind}.parquet" for model in ("linear", "softmax") for kind in ("losses", "weights")),
        "figures/fig3.parquet",
        "figures/fig3.pdf",
    }


def test_retraining_gives_bit_identical_parquet(smoke_run):
    outputs = [smoke_run / "results/train/gmm/softmax" / f"{kind}.parquet" for kind in ("losses", "weights")]
    before = [path.read_bytes() for path in outputs]
    result = snakemake(smoke_run, "--force", str(outputs[0].relative_to(smoke_run)))
    assert result.returncode == 0, result.stderr[-4000:]
    assert [path.read_bytes() for path in outputs] == before


BAD_CONFIGS = {
    "d_above_n": (("cases", "linear", "d"), 9, "cases.linear.d"),
    "negative_variance": (("cases", "gmm", "sigma0_sq"), -0.5, "cases.gmm.sigma0_sq"),
    "unknown_case": (("cases", "torus"), {"n": 3}, "'torus'"),
    "misspelt_key": (("training", "learning_rate"), 0.01, "'learning_rate' was unexpected"),
    "zero_context": (("cases", "sphere", "L"), 0, "cases.sphere.L"),
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
