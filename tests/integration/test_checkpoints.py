"""A training job that stops before its end continues where it stopped: real Snakemake runs of one smoke
training job whose time budget (execution.checkpoint.budget_s) is spent at its first save point (step 4 of 12). The job fails
saying where it checkpointed and how to continue; the same command, without the budget, finishes it with the
tables of a run that never stopped, and the checkpoint is gone, also when the stopped workflow's folder has moved
(as a checkpoint carried to the next GPU slot's machine does). The memory study's training jobs, stopped the same
way, do too."""

import subprocess

import pandas as pd
import pytest
import yaml
from runner import SMOKE, SNAKEMAKE, copy_workflow, smoke_target

pytestmark = pytest.mark.integration

OUTPUTS = [smoke_target(f"results/train/gmm/L20/softmax/{name}.parquet") for name in ("losses", "weights")]
LOG = SMOKE / "logs" / "train_ensemble" / "case=gmm,L=20,model=softmax.log"


def _build(workdir, *configfiles):
    return subprocess.run([SNAKEMAKE, OUTPUTS[0], "--cores", "1", "--configfile", "config/smoke.yaml", *configfiles],
                          cwd=workdir, capture_output=True, text=True, timeout=600)


def test_a_stopped_training_job_continues_to_the_tables_of_an_uninterrupted_one(repo, tmp_path):
    reference = copy_workflow(repo, tmp_path / "reference")
    assert _build(reference).returncode == 0
    workdir = copy_workflow(repo, tmp_path / "stopped")
    (workdir / "budget.yaml").write_text(yaml.safe_dump({"execution": {"checkpoint": {"budget_s": 0, "every_s": None}}}))
    stopped = _build(workdir, "budget.yaml")
    output = stopped.stdout + stopped.stderr
    assert stopped.returncode != 0 and "Error in rule train_ensemble" in output, output[-3000:]
    log = (workdir / LOG).read_text()
    assert "checkpoint saved at step 4 of 12" in log
    assert ("case gmm, L = 20, model softmax: checkpointed at step 4 of 12 ") in log
    assert "(the time budget of 0 s (execution.checkpoint.budget_s) is spent); run the same command to continue" in log
    saved = workdir / OUTPUTS[0]
    checkpoint = saved.parent / f".{saved.name}.checkpoint"
    assert checkpoint.is_file() and not saved.exists()  # Snakemake removed the failed job's outputs, not its checkpoint

    workdir = workdir.rename(tmp_path / "carried")  # continued in another folder, as on the next GPU slot's machine
    finished = _build(workdir)
    assert finished.returncode == 0, (finished.stdout + finished.stderr)[-3000:]
    assert "resuming from the checkpoint at step 4 of 12" in (workdir / LOG).read_text()
    assert not (workdir / checkpoint.relative_to(tmp_path / "stopped")).exists()
    for output in OUTPUTS:
        pd.testing.assert_frame_equal(pd.read_parquet(workdir / output), pd.read_parquet(reference / output), check_exact=True)


MEMORY_TRAININGS = {  # rule → (its smoke target, the stop its log reports)
    "train_memory_induction": ("results/memory/induction/layers1_adam_seed0.parquet", "step 1 of 300"),
    "train_memory_factual": ("results/memory/factual/attention_only_seed0.parquet", "step 1 of 600"),
    "train_memory_mlp": ("results/memory/mlp/d8.parquet", "step 1"),
    "simulate_memory_factual_dynamics": ("figures/memory/factual_dynamics.parquet", "step 1 of 200"),
}


def test_the_memory_studys_stopped_trainings_continue_to_the_tables_of_uninterrupted_ones(repo, tmp_path):
    targets = [smoke_target(path) for path, _ in MEMORY_TRAININGS.values()]

    def build(workdir, *configfiles):
        return subprocess.run([SNAKEMAKE, *targets, "--cores", "2", "--keep-going", "--configfile", "config/smoke.yaml",
                               *configfiles], cwd=workdir, capture_output=True, text=True, timeout=600)

    reference = copy_workflow(repo, tmp_path / "reference")
    assert build(reference).returncode == 0
    workdir = copy_workflow(repo, tmp_path / "stopped")
    (workdir / "budget.yaml").write_text(yaml.safe_dump({"execution": {"checkpoint": {"budget_s": 0, "every_s": None}}}))
    stopped = build(workdir, "budget.yaml")
    assert stopped.returncode != 0
    logs = {path.stem if path.parent.name == "logs" else path.parent.name: path
            for path in (workdir / SMOKE / "logs").rglob("*.log")}  # logs/<rule>.log or logs/<rule>/<wildcards>.log
    for rule, (_, step) in MEMORY_TRAININGS.items():
        assert f"checkpointed at {step} (the time budget of 0 s" in logs[rule].read_text(), rule
    finished = build(workdir)
    assert finished.returncode == 0, (finished.stdout + finished.stderr)[-3000:]
    for rule, (_, step) in MEMORY_TRAININGS.items():
        assert f"resuming from the checkpoint at {step} (" in logs[rule].read_text(), rule
    for target in targets:
        saved = workdir / target
        assert not (saved.parent / f".{saved.name}.checkpoint").exists()
        pd.testing.assert_frame_equal(pd.read_parquet(saved), pd.read_parquet(reference / target), check_exact=True, obj=target)
