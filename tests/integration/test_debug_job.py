"""A rule's script run outside Snakemake on a job of the smoke run (`python -m icdenoise.pipeline.debug_job`, named
by its rule and wildcards) writes what Snakemake's own run of that job wrote: the same tables, bit for bit, and the
same provenance (its params, inputs, config and versions). The job is a training with a params function of its
wildcards, a checkpoint and a log, train_mssa_regression, run in a copy of the workflow: the smoke run stays as built."""

import json
import subprocess
import sys

import pandas as pd
import pyarrow.parquet as pq
import pytest
from runner import copy_workflow, smoke_target

pytestmark = pytest.mark.integration

WILDCARDS = {"regression_task": "linear", "architecture": "mssa", "training_seed": "0"}
OUTPUTS = [smoke_target(f"results/mssa/regression/linear/mssa/seed0/{name}.parquet") for name in ("curve", "errors")]
LOG = smoke_target("logs/train_mssa_regression/regression_task=linear,architecture=mssa,training_seed=0.log")


def provenance(path) -> dict:
    """A table's provenance but the checkout's git state, which edits made while the session runs change."""
    saved = json.loads(pq.read_schema(path).metadata[b"icdenoise"])
    return {key: value for key, value in saved.items() if not key.startswith("git_")}


def test_a_rule_script_run_outside_snakemake_writes_what_snakemake_wrote(smoke_run, repo, tmp_path):
    workdir = copy_workflow(repo, tmp_path / "debug")
    wildcards = [f"{name}={value}" for name, value in WILDCARDS.items()]
    ran = subprocess.run([sys.executable, "-m", "icdenoise.pipeline.debug_job", "train_mssa_regression", *wildcards,
                          "--configfile", "config/smoke.yaml"], cwd=workdir, capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert f"output:\n  errors: '{OUTPUTS[1]}'\n  curve: '{OUTPUTS[0]}'" in ran.stderr
    assert "threads: 1" in ran.stderr
    for output in OUTPUTS:
        pd.testing.assert_frame_equal(pd.read_parquet(workdir / output), pd.read_parquet(smoke_run / output), check_exact=True)
        assert provenance(workdir / output) == provenance(smoke_run / output)
    assert "normalized test error by examples" in (workdir / LOG).read_text()
    assert not any((workdir / ".snakemake" / "metadata").iterdir())  # Snakemake records no job of it
