"""Snakemake's between-workflow cache (`snakemake --cache`, docs/experiments.md) across named runs: a second run
that changes one case's noise runs that case's shared jobs and links the others' tables from the first run's."""

import os
import re
import shutil

import pytest
from runner import SMOKE, copy_workflow, planned_outputs, snakemake

from icdenoise.records.artifacts import read_metadata

pytestmark = pytest.mark.integration

NOISY = SMOKE.parent / "smoke_noisy"  # the second run: the smoke config with the sphere case's σ_z² doubled
NOISY_CONFIG = "run: {name: smoke_noisy}\ncases:\n  sphere: {corruption: {kind: query, sigma_z_sq: 0.2}}\n"
TABLES = {  # case → its shared-stage tables (relative to a run's results/) that both runs build
    case: [f"datasets/{case}/L20.parquet", f"bayes/{case}/L20.parquet", f"train/{case}/L20/softmax/losses.parquet",
           f"train/{case}/L20/softmax/weights.parquet"]
    for case in ("linear", "sphere")
}


def targets(run):
    return [(run / "results" / table).as_posix() for table in TABLES["linear"] + TABLES["sphere"] if "losses" not in table]


def cache_plan(result):
    """Output (the job's first) → "obtained from" or "written to", for every cached job a dry run plans."""
    lines = re.findall(r"Output file (\S+) will be (obtained from|written to) global between-workflow cache",
                       result.stdout + result.stderr)
    return dict(lines)


def test_a_second_named_run_takes_the_equal_shared_jobs_from_the_cache_and_runs_only_the_changed_case(repo, tmp_path):
    workdir = copy_workflow(repo, tmp_path / "workflow")
    (workdir / "noisy.yaml").write_text(NOISY_CONFIG)
    environment = {key: value for key, value in os.environ.items() if key != "SNAKEMAKE_OUTPUT_CACHE"}  # the default
    cache = workdir / ".snakemake" / "icdenoise" / "output-cache"
    linear_l10 = (SMOKE / "results" / "datasets" / "linear" / "L10.parquet").as_posix()

    first = snakemake(workdir, *targets(SMOKE), linear_l10, "--cache", env=environment)
    assert first.returncode == 0, first.stderr[-3000:]
    kept = {path.name for path in cache.iterdir()}
    assert len(kept) == 3 + 2 + 2 * 2  # the datasets (linear at L = 20 and 10), the closed forms, the trainings' two tables
    for table in TABLES["linear"] + TABLES["sphere"]:
        assert (workdir / SMOKE / "results" / table).resolve().parent == cache  # moved there, linked from the run
    at_l10, at_l20 = (workdir / SMOKE / "results" / "datasets" / "linear" / f"L{L}.parquet" for L in (10, 20))
    assert at_l10.resolve() != at_l20.resolve()  # the wildcards are in the key: equal params at another L are another job

    plan = snakemake(workdir, "-n", *targets(NOISY), "--cache", configfile=["config/smoke.yaml", "noisy.yaml"], env=environment)
    assert plan.returncode == 0, plan.stderr[-3000:]
    planned = {path.split("/results/", 1)[1]: how for path, how in cache_plan(plan).items()}
    assert planned == {
        "datasets/linear/L20.parquet": "obtained from", "bayes/linear/L20.parquet": "obtained from",
        "train/linear/L20/softmax/losses.parquet": "obtained from",
        "datasets/sphere/L20.parquet": "written to", "bayes/sphere/L20.parquet": "written to",
        "train/sphere/L20/softmax/losses.parquet": "written to",
    }

    second = snakemake(workdir, *targets(NOISY), "--cache", configfile=["config/smoke.yaml", "noisy.yaml"], env=environment)
    assert second.returncode == 0, second.stderr[-3000:]
    log = second.stdout + second.stderr  # a stored table is moved to the cache, then linked; a fetched one only linked
    moved = {path.split("/results/", 1)[1] for path in re.findall(r"Moving output file (\S+) to cache", log)}
    linked = {path.split("/results/", 1)[1] for path in re.findall(r"Symlinking output file (\S+) from cache", log)}
    assert moved == set(TABLES["sphere"]) and linked - moved == set(TABLES["linear"])
    for table in TABLES["linear"]:
        mine, theirs = workdir / NOISY / "results" / table, workdir / SMOKE / "results" / table
        assert mine.is_file() and mine.read_bytes() == theirs.read_bytes(), table
        assert read_metadata(mine)["run"] == "smoke"  # the table records the run that computed it
    for table in TABLES["sphere"]:
        mine, theirs = workdir / NOISY / "results" / table, workdir / SMOKE / "results" / table
        assert mine.read_bytes() != theirs.read_bytes() and read_metadata(mine)["run"] == "smoke_noisy", table
    assert (workdir / NOISY / "logs" / "sample_prompts" / "case=sphere,L=20.log").read_text().strip()
    assert (workdir / NOISY / "logs" / "sample_prompts" / "case=linear,L=20.log").read_text() == ""  # not run here

    first_again = snakemake(workdir, "-n", *targets(SMOKE), linear_l10, "--cache", env=environment)
    assert first_again.returncode == 0 and planned_outputs(first_again) == set(), first_again.stdout[-3000:]

    shutil.rmtree(workdir / NOISY)  # deleting a run deletes its links, never the cache or another run's tables
    assert kept <= {path.name for path in cache.iterdir()}
    for table in TABLES["linear"] + TABLES["sphere"]:
        assert (workdir / SMOKE / "results" / table).is_file(), table
    after_deletion = snakemake(workdir, "-n", *targets(SMOKE), linear_l10, "--cache", env=environment)
    assert after_deletion.returncode == 0 and planned_outputs(after_deletion) == set(), after_deletion.stdout[-3000:]


def test_without_cache_the_shared_stages_write_their_own_files_with_benchmarks(repo, tmp_path):
    """The cache is Snakemake's `--cache` switch: without it nothing is linked, no cache folder is made, and every
    job has its benchmark (a cached rule has none: Snakemake refuses both)."""
    workdir = copy_workflow(repo, tmp_path / "workflow")
    dataset = SMOKE / "results" / "datasets" / "linear" / "L20.parquet"
    result = snakemake(workdir, dataset.as_posix())
    assert result.returncode == 0, result.stderr[-3000:]
    assert (workdir / dataset).is_file() and not (workdir / dataset).is_symlink()
    assert not (workdir / ".snakemake" / "icdenoise" / "output-cache").exists()
    assert (workdir / SMOKE / "benchmarks" / "sample_prompts" / "case=linear,L=20.tsv").is_file()
