"""Snakemake's between-workflow cache (`snakemake --cache`, docs/caching.md) across named runs: a second run
that changes one case's noise runs the jobs that read that case, of the shared stages and of the studies, and links
the others' tables from the first run's."""

import os
import re
import shutil
from pathlib import Path

import pytest
from runner import SMOKE, copy_workflow, parsed_rules, planned_blocks, planned_outputs, snakemake
from snakemake.io import apply_wildcards

from icdenoise.records.artifacts import read_metadata

pytestmark = pytest.mark.integration

NOISY = SMOKE.parent / "smoke_noisy"  # the second run: the smoke config with the sphere case's σ_z² doubled
NOISY_CONFIG = "run: {name: smoke_noisy}\ncases:\n  sphere: {corruption: {kind: query, sigma_z_sq: 0.2}}\n"
CASES = ("linear", "sphere")  # both runs build both cases' jobs of every shared stage
JOB = {"L": 20, "model": "softmax"}  # the wildcards of those jobs besides the case: its own L, the softmax model
SHARED_STAGES = ("sample_prompts", "train_ensemble", "evaluate_bayes")  # their jobs are built and compared byte for byte
# One cached rule of each study, among those with one job that reads no other job's table (`study_jobs`)
STUDY_RULES = {"simulate_memory_variance", "simulate_alltoken_gaussian", "simulate_mssa_snr", "evaluate_descent_steps"}
READS_THE_SPHERE = "evaluate_ideal_softmax_convergence"  # Theorem 3.1 on the sphere case (onelayer.theorem31.case)


def cached_jobs(rules) -> dict[str, dict[str, dict]]:
    """Rule → case → its job's `tables` and `log` (relative to a run's folder), for each shared stage, which must be
    a rule whose jobs `snakemake --cache` keeps in the between-workflow cache in `rules` (`parsed_rules` under
    `--cache`)."""
    def job(patterns, case):
        return [Path(apply_wildcards(pattern, {"case": case, **JOB})).relative_to(SMOKE).as_posix() for pattern in patterns]

    assert [name for name in SHARED_STAGES if not rules[name]["cached"]] == []
    return {name: {case: {"tables": job(rules[name]["output"], case), "log": job(rules[name]["log"], case)[0]} for case in CASES}
            for name in SHARED_STAGES}


def study_jobs(rules) -> dict[str, list[str]]:
    """Rule → its tables (relative to a run's folder), for every cached rule of `rules` outside the shared stages whose
    one job reads no other job's table: no wildcards, and no input but its code."""
    return {name: [Path(pattern).relative_to(SMOKE).as_posix() for pattern in rule["output"]] for name, rule in rules.items()
            if rule["cached"] and name not in SHARED_STAGES and rule["input"] == ["code"] and "{" not in "".join(rule["output"])}


def in_run(run, paths) -> list[str]:
    """Paths relative to a run's folder, as targets of the run `run`."""
    return [(run / path).as_posix() for path in paths]


def of_run(run, paths) -> set[str]:
    """Paths under the run `run`'s folder, relative to it."""
    return {Path(path).relative_to(run).as_posix() for path in paths}


def cache_plan(result):
    """(rule, case (None for a job without one), outputs, "obtained from" or "written to") of every cached job a dry
    run plans."""
    how = dict(re.findall(r"Output file (\S+) will be (obtained from|written to) global between-workflow cache",
                          result.stdout + result.stderr))  # one line per job, naming its first output
    jobs = [(job["rule"], dict(item.split("=", 1) for item in job["wildcards"].split(", ")) if "wildcards" in job else {},
             job["output"].split(", ")) for job in planned_blocks(result) if "output" in job]
    return [(rule, wildcards.get("case"), outputs, how[outputs[0]]) for rule, wildcards, outputs in jobs if outputs[0] in how]


def test_a_second_named_run_takes_the_equal_jobs_from_the_cache_and_runs_only_those_of_the_changed_case(repo, tmp_path):
    """Each shared stage (`cached_jobs`), with a job on both cases, and the studies' cached jobs that read no other
    job's table (`study_jobs`): the first run stores each table it computes in the cache; the second takes every
    cached job of the linear case (and of any job upstream of one) and every study job from it, and runs every one of
    the sphere case, whose noise it changes, and Theorem 3.1's, which reads the sphere case."""
    workdir = copy_workflow(repo, tmp_path / "workflow")
    (workdir / "noisy.yaml").write_text(NOISY_CONFIG)
    environment = {key: value for key, value in os.environ.items() if key != "SNAKEMAKE_OUTPUT_CACHE"}  # the default
    cache = workdir / ".snakemake" / "icdenoise" / "output-cache"
    linear_l10 = (SMOKE / "results" / "datasets" / "linear" / "L10.parquet").as_posix()
    rules = parsed_rules(workdir, cache=True, env=environment)
    jobs, studies = cached_jobs(rules), study_jobs(rules)
    assert STUDY_RULES | {READS_THE_SPHERE} <= set(studies)
    tables = {case: [table for rule in jobs.values() for table in rule[case]["tables"]] for case in CASES}
    reused = [table for name, outputs in studies.items() if name != READS_THE_SPHERE for table in outputs]
    targets = tables["linear"] + tables["sphere"] + [table for outputs in studies.values() for table in outputs]

    first = snakemake(workdir, *in_run(SMOKE, targets), linear_l10, "--cache", env=environment)
    assert first.returncode == 0, first.stderr[-3000:]
    stored = of_run(SMOKE, re.findall(r"Moving output file (\S+) to cache", first.stdout + first.stderr))
    assert set(targets) | of_run(SMOKE, [linear_l10]) <= stored
    kept = {path.name for path in cache.iterdir()}
    assert len(kept) == len(stored)  # one entry per table computed
    for table in stored:
        assert (workdir / SMOKE / table).resolve().parent == cache  # moved there, linked from the run
    at_l10, at_l20 = (workdir / SMOKE / "results" / "datasets" / "linear" / f"L{L}.parquet" for L in (10, 20))
    assert at_l10.resolve() != at_l20.resolve()  # the wildcards are in the key: equal params at another L are another job

    plan = snakemake(workdir, "-n", *in_run(NOISY, targets), "--cache", configfile=["config/smoke.yaml", "noisy.yaml"],
                     env=environment)
    assert plan.returncode == 0, plan.stderr[-3000:]
    planned = cache_plan(plan)
    assert {rule for rule, *_ in planned} == set(jobs) | set(studies)
    reads_the_sphere = [job for job in planned if job[1] == "sphere" or job[0] == READS_THE_SPHERE]
    assert [job for job in planned if job[3] != ("written to" if job in reads_the_sphere else "obtained from")] == []
    obtained, written = ({path for *_, outputs, how in planned if how == way for path in of_run(NOISY, outputs)}
                         for way in ("obtained from", "written to"))
    assert set(tables["linear"]) | set(reused) <= obtained and set(tables["sphere"]) | set(studies[READS_THE_SPHERE]) <= written

    second = snakemake(workdir, *in_run(NOISY, targets), "--cache", configfile=["config/smoke.yaml", "noisy.yaml"],
                       env=environment)
    assert second.returncode == 0, second.stderr[-3000:]
    log = second.stdout + second.stderr  # a stored table is moved to the cache, then linked; a fetched one only linked
    moved = of_run(NOISY, re.findall(r"Moving output file (\S+) to cache", log))
    linked = of_run(NOISY, re.findall(r"Symlinking output file (\S+) from cache", log))
    assert moved == written and linked - moved == obtained
    for table in obtained:
        mine, theirs = workdir / NOISY / table, workdir / SMOKE / table
        assert mine.is_file() and mine.read_bytes() == theirs.read_bytes(), table
        assert read_metadata(mine)["run"] == "smoke"  # the table records the run that computed it
    for table in written:
        mine, theirs = workdir / NOISY / table, workdir / SMOKE / table
        assert mine.read_bytes() != theirs.read_bytes() and read_metadata(mine)["run"] == "smoke_noisy", table
    for name, rule in jobs.items():
        assert (workdir / NOISY / rule["sphere"]["log"]).read_text().strip(), name
        assert (workdir / NOISY / rule["linear"]["log"]).read_text() == "", name  # not run here

    first_again = snakemake(workdir, "-n", *in_run(SMOKE, targets), linear_l10, "--cache", env=environment)
    assert first_again.returncode == 0 and planned_outputs(first_again) == set(), first_again.stdout[-3000:]

    shutil.rmtree(workdir / NOISY)  # deleting a run deletes its links, never the cache or another run's tables
    assert kept <= {path.name for path in cache.iterdir()}
    for table in stored:
        assert (workdir / SMOKE / table).is_file(), table
    after_deletion = snakemake(workdir, "-n", *in_run(SMOKE, targets), linear_l10, "--cache", env=environment)
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
