"""A training job that stops before its end continues where it stopped: real Snakemake runs of one smoke
training job whose time budget (execution.checkpoint.budget_s) is spent at its first save point (step 4 of 12). The job fails
saying where it checkpointed and how to continue; the same command, without the budget, finishes it with the
tables of a run that never stopped, and the checkpoint is gone."""

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

    finished = _build(workdir)
    assert finished.returncode == 0, (finished.stdout + finished.stderr)[-3000:]
    assert "resuming from the checkpoint at step 4 of 12" in (workdir / LOG).read_text()
    assert not checkpoint.exists()
    for output in OUTPUTS:
        pd.testing.assert_frame_equal(pd.read_parquet(workdir / output), pd.read_parquet(reference / output), check_exact=True)
