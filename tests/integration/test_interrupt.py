"""Ctrl-C on `snakemake` stops a running training within seconds, saved: a real Snakemake run of one smoke
training job made long (2000 epochs), interrupted as a terminal's Ctrl-C does (SIGINT to snakemake's process
group) once the job has logged its first tenth. The job saves at the next epoch's end and fails saying where;
the same command then finishes it with the tables of a run that never stopped."""

import os
import signal
import subprocess
import time

import pandas as pd
import pytest
import yaml
from runner import SMOKE, SNAKEMAKE, copy_workflow, smoke_target

pytestmark = pytest.mark.integration

OUTPUTS = [smoke_target(f"results/train/gmm/L20/softmax/{name}.parquet") for name in ("losses", "weights")]
LOG = SMOKE / "logs" / "train_ensemble" / "case=gmm,L=20,model=softmax.log"
LONG = {"training": {"epochs": {"gmm": 2000}, "record_every": 400}}


def _command():
    return [SNAKEMAKE, OUTPUTS[0], "--cores", "1", "--configfile", "config/smoke.yaml", "long.yaml"]


@pytest.fixture(scope="module")
def reference(repo, tmp_path_factory):
    """The long training, never stopped: built once for both ways of running it."""
    workdir = copy_workflow(repo, tmp_path_factory.mktemp("reference") / "workflow")
    (workdir / "long.yaml").write_text(yaml.safe_dump(LONG))
    assert subprocess.run(_command(), cwd=workdir, capture_output=True, timeout=600).returncode == 0
    return workdir


@pytest.mark.parametrize("warm_start", ["1", "0"])
def test_ctrl_c_saves_the_running_training_and_the_same_command_continues_it(repo, tmp_path, warm_start, reference):
    environment = {**os.environ, "ICDENOISE_WARMSTART": warm_start}

    workdir = copy_workflow(repo, tmp_path / "interrupted")
    (workdir / "long.yaml").write_text(yaml.safe_dump(LONG))
    process = subprocess.Popen(_command(), cwd=workdir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env=environment, start_new_session=True)
    log = workdir / LOG
    deadline = time.monotonic() + 300
    while not (log.is_file() and "epoch 200/2000" in log.read_text()):  # a tenth done, nine to go
        assert process.poll() is None and time.monotonic() < deadline, log.read_text() if log.is_file() else "no log"
        time.sleep(0.05)
    interrupted = time.monotonic()
    os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C in a terminal sends
    output, _ = process.communicate(timeout=120)
    assert time.monotonic() - interrupted < 30, output[-3000:]
    assert process.returncode != 0
    text = log.read_text()
    assert "SIGINT received); run the same command to continue" in text, text[-3000:]
    assert "checkpoint saved at step " in text

    finished = subprocess.run(_command(), cwd=workdir, capture_output=True, text=True, env=environment, timeout=600)
    assert finished.returncode == 0, (finished.stdout + finished.stderr)[-3000:]
    assert "resuming from the checkpoint at step " in log.read_text()
    for output_path in OUTPUTS:
        pd.testing.assert_frame_equal(pd.read_parquet(workdir / output_path), pd.read_parquet(reference / output_path),
                                      check_exact=True)
