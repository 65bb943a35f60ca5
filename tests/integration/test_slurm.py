"""The smoke config through the SLURM profile (profiles/slurm) on a real one-node SLURM.

`scripts/slurm/start_local_cluster.sh` installs and starts it (.ci/run calls it). Where no SLURM
answers, the tests skip and say why, except under ICDENOISE_REQUIRE_SLURM=1 (CI), where they fail.
"""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml
from runner import SMOKE, SNAKEMAKE, copy_workflow, smoke_target, snakemake

pytestmark = pytest.mark.integration

PROFILE = ["--profile", "profiles/slurm"]
CANCELLED_RUN = ("gmm", "20", "softmax")  # the training job cancelled mid-run
CANCELLED_DATASET = SMOKE / "results" / "datasets" / CANCELLED_RUN[0] / f"L{CANCELLED_RUN[1]}.parquet"
CANCELLED_TRAINING = SMOKE / "results" / "train" / CANCELLED_RUN[0] / f"L{CANCELLED_RUN[1]}" / CANCELLED_RUN[2]
# One job of each shared stage through sbatch, the cancelled training run again among them (a dataset of another
# case, since the cancelled job's was drawn here; that case's training; its Bayes evaluation), and the memory study's
# induction chain: a study's own training rule through sbatch, its summary and plot here. A study's own compute rule
# through sbatch with its ledger here is the example study's test (test_example_study.py). Every other rule is
# defined by the same helpers (job_rule: `local`, or submitted with its study's job-size model), so more targets
# would add about 10 s of sbatch and interpreter start per job on CI's two cores, and their CPU time beside the other
# worker's, and test nothing these do not.
CLUSTER_TARGETS = [
    smoke_target("results/datasets/linear/L20.parquet"),
    str(CANCELLED_TRAINING / "weights.parquet"),
    smoke_target(f"results/bayes/{CANCELLED_RUN[0]}/L{CANCELLED_RUN[1]}.parquet"),
    smoke_target("figures/memory/induction.pdf"),
]


def running_training_job(case: str, L: str, model: str) -> str | None:
    """The SLURM id of this training job if it is running (the executor comments jobs with their rule and wildcards)."""
    listing = subprocess.run(["squeue", "--noheader", "--states=RUNNING", "--format=%i|%k"], capture_output=True, text=True).stdout
    for line in listing.splitlines():
        job_id, comment = line.split("|", 1)
        if comment.strip() == f"rule_train_ensemble_wildcards_{case}_{L}_{model}":
            return job_id.strip()
    return None


def run_and_cancel(workdir: Path, configfile: str) -> tuple[subprocess.CompletedProcess, str]:
    """Start the training job through the profile, scancel it once its log shows epochs, and wait. Its dataset is
    drawn here first, so that the training job is the run's first submission and no status check waits on another
    (the other datasets of CLUSTER_TARGETS go through sbatch in the run that completes)."""
    case, L, model = CANCELLED_RUN
    log = workdir / SMOKE / "logs" / "train_ensemble" / f"case={case},L={L},model={model}.log"
    targets = [str(path.relative_to(workdir)) for path in training_outputs(workdir)]
    dataset = snakemake(workdir, str(CANCELLED_DATASET), configfile=configfile, cores=("--cores", "1"))
    assert dataset.returncode == 0, dataset.stderr[-3000:]
    process = subprocess.Popen([SNAKEMAKE, *PROFILE, *targets, "--configfile", configfile], cwd=workdir, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline, job_id = time.time() + 300, None
    while time.time() < deadline and process.poll() is None:
        job_id = running_training_job(case, L, model)
        if job_id and log.is_file() and "epoch" in log.read_text():
            subprocess.run(["scancel", job_id], check=True)
            break
        time.sleep(0.5)
    output, _ = process.communicate(timeout=600)
    return subprocess.CompletedProcess(process.args, process.returncode, output, ""), job_id


@pytest.fixture(scope="session")  # not module: built once however xdist orders the `slurm` group (conftest)
def cluster_runs(slurm, repo, tmp_path_factory):
    """The smoke config with one long training job, cancelled; then the smoke config's CLUSTER_TARGETS, to the end."""
    workdir = copy_workflow(repo, tmp_path_factory.mktemp("slurm") / "workflow")
    config = yaml.safe_load((workdir / "config" / "smoke.yaml").read_text())
    config["training"]["epochs"][CANCELLED_RUN[0]] = 4000  # long enough to be cancelled mid-run
    (workdir / "long.yaml").write_text(yaml.safe_dump(config))
    cancelled, job_id = run_and_cancel(workdir, "long.yaml")
    after_cancel = {path: path.exists() for path in training_outputs(workdir)}
    leftovers = sorted(str(path) for folder in ("results", "figures") for path in (workdir / SMOKE / folder).rglob(".*.tmp"))
    completed = subprocess.run([SNAKEMAKE, *PROFILE, *CLUSTER_TARGETS, "--configfile", "config/smoke.yaml"], cwd=workdir,
                               capture_output=True, text=True, timeout=900)
    return {"workdir": workdir, "cancelled": cancelled, "job_id": job_id, "outputs_after_cancel": after_cancel,
            "leftovers": leftovers, "completed": completed}


def training_outputs(workdir: Path) -> list[Path]:
    return [workdir / CANCELLED_TRAINING / "losses.parquet", workdir / CANCELLED_TRAINING / "weights.parquet"]


def test_a_cancelled_training_job_fails_the_run_and_leaves_no_partial_output(cluster_runs):
    cancelled = cluster_runs["cancelled"]
    assert cluster_runs["job_id"], f"the training job was never seen running:\n{cancelled.stdout[-3000:]}"
    assert cancelled.returncode != 0, cancelled.stdout[-3000:]
    assert "Error in rule train_ensemble" in cancelled.stdout and "CANCELLED" in cancelled.stdout, cancelled.stdout[-3000:]
    assert not any(cluster_runs["outputs_after_cancel"].values())
    assert cluster_runs["leftovers"] == []


def test_the_rerun_completes(cluster_runs):
    completed = cluster_runs["completed"]
    assert completed.returncode == 0, completed.stderr[-4000:]
    assert all(path.is_file() for path in training_outputs(cluster_runs["workdir"]))


def test_light_jobs_run_on_the_submitting_machine_and_compute_jobs_through_sbatch(cluster_runs):
    """Plots and summaries are localrules (a ledger: the example study's SLURM test); Snakemake names the others `rule`."""
    output = cluster_runs["completed"].stdout + cluster_runs["completed"].stderr
    for local in ("summarise_memory_induction", "plot_memory_induction"):
        assert re.search(rf"^localrule {local}:$", output, flags=re.MULTILINE), local
    for submitted in ("sample_prompts", "train_ensemble", "evaluate_bayes", "train_memory_induction"):
        assert re.search(rf"^rule {submitted}:$", output, flags=re.MULTILINE), submitted


def test_outputs_equal_a_local_run(cluster_runs, smoke_run):
    def tables(root: Path) -> set[str]:
        return {str(path.relative_to(root)) for folder in ("results", "figures") for path in (root / SMOKE / folder).rglob("*.parquet")}

    on_cluster, local = cluster_runs["workdir"], smoke_run
    built = tables(on_cluster)
    assert built <= tables(local), sorted(built - tables(local))
    for study in ("results/datasets/", "results/train/", "results/bayes/", "results/memory/induction"):  # each target's tables came back
        assert any(study in name for name in built), (study, sorted(built))
    for name in sorted(tables(on_cluster)):
        pd.testing.assert_frame_equal(pd.read_parquet(on_cluster / name), pd.read_parquet(local / name), check_exact=True, obj=name)
