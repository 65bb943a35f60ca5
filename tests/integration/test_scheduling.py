"""A local run's scheduler wakes once per finished job: Snakemake's default job rate limit, whose wake-ups
multiply with every finished job, is off there (icdenoise.pipeline.scheduling). A real run, one core, so that
ready jobs wait while another runs."""

import re

import pytest
from runner import copy_workflow, smoke_target, snakemake

pytestmark = pytest.mark.integration

# Two datasets and four trainings of about a second each: at one core, three trainings wait while one runs.
TRAININGS = [smoke_target(f"results/train/{case}/L20/{model}/losses.parquet")
             for case in ("gmm", "sphere") for model in ("linear", "softmax")]


def test_a_local_run_chooses_jobs_once_at_the_start_and_once_per_finished_job(repo, tmp_path):
    workdir = copy_workflow(repo, tmp_path / "workflow")
    result = snakemake(workdir, *TRAININGS, "--verbose", cores=("--cores", "1"))
    assert result.returncode == 0, result.stderr[-3000:]
    log = result.stdout + result.stderr
    assert "Submitting maximum 100 job(s) over 1.0 second(s)." in log  # Snakemake's default limit was set up
    finished = len(re.findall(r"^Finished jobid: ", log, flags=re.M))
    rounds = log.count("Resources before job selection")  # a scheduling round with jobs ready to start
    assert finished == 6
    assert rounds <= finished + 1, f"{rounds} rounds for {finished} jobs: the rate limit's wake-ups are back"
