"""Failures you can read: a training job that fails writes why into its own log file (the rule's `log:`,
which the profile's `show-failed-logs` prints), after its progress lines, whether it ran in a warm-start
copy or in its own process. Real Snakemake runs of one smoke training job whose learning rate diverges."""

import os
import subprocess

import pytest
import yaml
from runner import SMOKE, SNAKEMAKE, copy_workflow, smoke_target

pytestmark = pytest.mark.integration

TARGET = smoke_target("results/train/gmm/L20/softmax/losses.parquet")
LOG = SMOKE / "logs" / "train_ensemble" / "case=gmm,L=20,model=softmax.log"


@pytest.mark.parametrize("warm_start, runs_in", [("1", "runs in a warm-start copy"), ("0", "runs in its own process")])
def test_a_diverging_training_job_logs_its_traceback_and_the_divergence(repo, tmp_path, warm_start, runs_in):
    """lr = 10 (1000 times the smoke config's) passes validation; the loss then passes 100 times the zero
    predictor's within the first epoch, and the job fails naming the case, L, model, seeds and step. The
    log's first line says where the job ran, so that both ways are exercised."""
    workdir = copy_workflow(repo, tmp_path / "workflow")
    (workdir / "diverge.yaml").write_text(yaml.safe_dump({"training": {"lr": 10.0}}))
    result = subprocess.run([SNAKEMAKE, TARGET, "--cores", "1", "--configfile", "config/smoke.yaml", "diverge.yaml"],
                            cwd=workdir, capture_output=True, text=True, timeout=600,
                            env={**os.environ, "ICDENOISE_WARMSTART": warm_start})
    output = result.stdout + result.stderr
    assert result.returncode != 0 and "Error in rule train_ensemble" in output, output[-3000:]
    log = (workdir / LOG).read_text()
    assert runs_in in log.splitlines()[0]
    progress = log.index("training 2 seeds of softmax on cpu")
    failure = log.index("the job failed: TrainingDiverged")
    assert progress < failure < log.index("Traceback (most recent call last):") < log.index("in train_ensemble")
    assert "runpy" not in log and "warmstart.py" not in log  # the traceback a job in its own process has, from its script on
    assert ("TrainingDiverged: case gmm, L = 20, model softmax: the loss of seed(s) [0, 1] is over 100 times the zero "
            "predictor's at step ") in log
    assert f"Logfile {LOG.as_posix()}" in output  # show-failed-logs prints this log, the traceback with it
