"""The same verdicts under another summation order (issue 37): the smoke run's ledgers, rebuilt from scratch with
two threads per training and evaluation job and other chunk sizes (the planted steps' float32 chunks, the
evaluations' prompts, Theorem 3.1's), give every claim the verdict the smoke run gave it. How a job runs may move
a number by rounding, never a verdict."""

import shutil

import pandas as pd
import pytest
import yaml
from runner import smoke_target, snakemake

pytestmark = pytest.mark.integration

LEDGERS = ["figures/claims.parquet", "figures/alltoken/claims.parquet", "figures/mssa/claims.parquet", "figures/memory/claims.parquet"]
OTHER_ORDER = {"execution": {"training": {"threads": 2}, "evaluation": {"threads": 2, "chunk_size": 777},
                             "onelayer": {"theorem31": {"chunk_size": 13}}, "memory": {"planted": {"chunk_floats": 4096}}}}


def test_every_ledger_gives_the_same_verdicts_under_another_summation_order(smoke_run, tmp_path):
    workdir = tmp_path / "workflow"
    shutil.copytree(smoke_run, workdir, symlinks=True)
    (workdir / "order.yaml").write_text(yaml.safe_dump(OTHER_ORDER))
    targets = list(map(smoke_target, LEDGERS))
    result = snakemake(workdir, "--forceall", *targets, configfile=["config/smoke.yaml", "order.yaml"])
    assert result.returncode == 0, result.stderr[-4000:]
    for ledger in LEDGERS:
        first, again = (pd.read_parquet(root / smoke_target(ledger)).set_index("claim") for root in (smoke_run, workdir))
        assert list(again.index) == list(first.index)
        differing = again.index[again["verdict"] != first["verdict"]].tolist()
        assert not differing, (f"{ledger}: verdicts moved under another summation order: "
                               + "; ".join(f"{claim} {first.loc[claim, 'verdict']} -> {again.loc[claim, 'verdict']} "
                                           f"({first.loc[claim, 'ours_mean']:.6g} -> {again.loc[claim, 'ours_mean']:.6g})"
                                           for claim in differing))
