"""The smoke config through the SLURM profile (profiles/slurm) on a real one-node SLURM, and a training job warned of
its time limit, which saves, is submitted again by Snakemake and continues to the tables of a run that never stopped.

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
from runner import SLURM_PROFILE, SMOKE, SNAKEMAKE, copy_workflow, smoke_target, snakemake

pytestmark = pytest.mark.integration

PROFILE = SLURM_PROFILE
CANCELLED_RUN = ("gmm", "20", "softmax")  # the training job cancelled mid-run
CANCELLED_DATASET = SMOKE / "results" / "datasets" / CANCELLED_RUN[0] / f"L{CANCELLED_RUN[1]}.parquet"
CANCELLED_TRAINING = SMOKE / "results" / "train" / CANCELLED_RUN[0] / f"L{CANCELLED_RUN[1]}" / CANCELLED_RUN[2]
# One job of each shared stage through sbatch, the cancelled training run again among them (a dataset of another
# case, since the cancelled job's was drawn here; that case's training; its Bayes evaluation), and the memory study's
# induction chain: a study's own training rule through sbatch, its summary and plot here. A study's own compute rule
# through sbatch with its ledger here is the template study's test (test_starter_study.py). Every other rule is
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
    """Start the training job through the profile, without resubmission, scancel it once its log shows epochs, and
    wait. Its dataset is
    drawn here first, so that the training job is the run's first submission and no status check waits on another
    (the other datasets of CLUSTER_TARGETS go through sbatch in the run that completes)."""
    case, L, model = CANCELLED_RUN
    log = workdir / SMOKE / "logs" / "train_ensemble" / f"case={case},L={L},model={model}.log"
    targets = [str(path.relative_to(workdir)) for path in training_outputs(workdir)]
    dataset = snakemake(workdir, str(CANCELLED_DATASET), configfile=configfile, cores=("--cores", "1"))
    assert dataset.returncode == 0, dataset.stderr[-3000:]
    # without the profile's resubmission of training jobs (preemptible-retries), which would continue this one
    process = subprocess.Popen([SNAKEMAKE, *PROFILE, *targets, "--preemptible-retries", "0", "--configfile", configfile],
                               cwd=workdir, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
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
    """Plots and summaries are localrules (a ledger: the template study's SLURM test); Snakemake names the others `rule`."""
    output = cluster_runs["completed"].stdout + cluster_runs["completed"].stderr
    for local in ("summarise_memory_induction", "plot_memory_induction"):
        assert re.search(rf"^localrule {local}:$", output, flags=re.MULTILINE), local
    for submitted in ("sample_prompts", "train_ensemble", "evaluate_bayes", "train_memory_induction"):
        assert re.search(rf"^rule {submitted}:$", output, flags=re.MULTILINE), submitted
    # docs/cluster.md: "7 `sbatch` jobs": a dataset, a training, a Bayes evaluation and the smoke run's 4 induction runs
    assert len(re.findall(r"^rule \w+:$", output, flags=re.MULTILINE)) == 7, output[-3000:]


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


# A training job warned of its time limit: SIGUSR1, which `sbatch --signal=USR1@45` (the workflow's slurm_extra for every
# rule that saves checkpoints) has SLURM send to the job step's processes before the limit. Here `scancel --signal=USR1`
# sends the same signal the same way, once the job's log shows that it trains, so that the outcome does not depend on
# when it lands. SLURM checks time limits every 30 s, so the real warning comes 45 to 75 s before the limit: with a
# 1-minute limit (SLURM's least) that can be the job's first seconds (measured here: it ended Snakemake in the job
# 3.5 s after its start, before Snakemake had read the workflow, and the retry started from step 0). With a 2-minute
# limit (`--set-resources "train_ensemble:runtime=2 if attempt == 1 else 10"`, 30000 epochs) the real warning stopped
# the training at step 51652 of 120000, about 50 s into the job, and the retry's tables equalled a local run's
# (2026-11-29, by hand: a test would need minutes of training).
WARNED = ("gmm", "20", "softmax")
WARNED_TRAINING = SMOKE / "results" / "train" / WARNED[0] / f"L{WARNED[1]}" / WARNED[2]
WARNED_LOG = SMOKE / "logs" / "train_ensemble" / f"case={WARNED[0]},L={WARNED[1]},model={WARNED[2]}.log"
WARNED_LONG = {"training": {"epochs": {"gmm": 5000}, "record_every": 2000}}  # 20000 steps: seconds after the warning


def warned_command(*options: str) -> list[str]:
    return [SNAKEMAKE, str(WARNED_TRAINING / "losses.parquet"), *options, "--configfile", "config/smoke.yaml", "long.yaml"]


@pytest.fixture(scope="session")
def warned_run(slurm, repo, tmp_path_factory):
    """The long smoke training through the profile, warned with SIGUSR1 once it trains and left to finish; and the same
    training run here without a stop."""
    folder = tmp_path_factory.mktemp("slurm-warned")
    reference, workdir = copy_workflow(repo, folder / "reference"), copy_workflow(repo, folder / "warned")
    for root in (reference, workdir):
        (root / "long.yaml").write_text(yaml.safe_dump(WARNED_LONG))
    built = subprocess.Popen(warned_command("--cores", "1"), cwd=reference, text=True, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)  # beside the cluster's run: the node's one job leaves a core
    dataset = snakemake(workdir, str(CANCELLED_DATASET), configfile=["config/smoke.yaml", "long.yaml"], cores=("--cores", "1"))
    assert dataset.returncode == 0, dataset.stderr[-3000:]  # drawn here: the training is the run's only submission
    process = subprocess.Popen(warned_command(*PROFILE, "--verbose"), cwd=workdir, text=True, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT)
    log, deadline, warned = workdir / WARNED_LOG, time.time() + 300, None
    while time.time() < deadline and process.poll() is None:
        job_id = running_training_job(*WARNED)
        if job_id and log.is_file() and "epoch 500/5000" in log.read_text():  # a tenth done: its checkpoint listens
            subprocess.run(["scancel", "--signal=USR1", job_id], check=True)
            warned = job_id
            break
        time.sleep(0.2)
    output, _ = process.communicate(timeout=600)
    _, errors = built.communicate(timeout=600)
    assert built.returncode == 0, errors[-3000:]
    slurm_logs = {path.stem: path.read_text() for path in (workdir / "logs" / "slurm").rglob("*.log")}
    return {"reference": reference, "workdir": workdir, "warned": warned, "returncode": process.returncode,
            "output": output, "slurm_logs": slurm_logs, "log": log.read_text() if log.is_file() else ""}


def test_a_warned_training_job_saves_is_submitted_again_and_continues_to_the_uninterrupted_tables(warned_run):
    output = warned_run["output"]
    assert warned_run["warned"], f"the training job was never seen training:\n{output[-3000:]}"
    assert warned_run["returncode"] == 0, output[-4000:]
    submissions = re.findall(r"^sbatch call: (.*)$", output, flags=re.MULTILINE)
    assert len(submissions) == 2 and all("--signal=USR1@45" in call for call in submissions), submissions
    assert "Trying to restart job" in output
    first = warned_run["slurm_logs"][warned_run["warned"]]  # a failed job's SLURM log is kept
    stopped = re.search(r"case gmm, L = 20, model softmax: checkpointed at step (\d+) of 20000 \(SIGUSR1 received\); "
                        r"run the same command to continue", first)
    assert stopped, first[-3000:]
    assert 2000 <= int(stopped[1]) < 20000
    assert f"resuming from the checkpoint at step {stopped[1]} of 20000" in warned_run["log"]
    assert not (warned_run["workdir"] / WARNED_TRAINING / ".losses.parquet.checkpoint").exists()
    for name in ("losses", "weights"):
        pd.testing.assert_frame_equal(pd.read_parquet(warned_run["workdir"] / WARNED_TRAINING / f"{name}.parquet"),
                                      pd.read_parquet(warned_run["reference"] / WARNED_TRAINING / f"{name}.parquet"),
                                      check_exact=True, obj=name)
