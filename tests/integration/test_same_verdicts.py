"""The same verdicts under another summation order (issue 37): the smoke run's ledgers, rebuilt with two threads per
training and evaluation job and other chunk sizes (the planted steps' float32 chunks, the evaluations' prompts,
Theorem 3.1's), give every claim the verdict the smoke run gave it. How a job runs may move a number by rounding,
never a verdict. Every job whose summation order those settings change runs again, and every job downstream of
it; the others would compute the same numbers from the same settings (test_workflow's retraining test holds that),
so they are not run again."""

import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml
from runner import smoke_target, snakemake

pytestmark = pytest.mark.integration

LEDGERS = ["figures/claims.parquet", "figures/alltoken/claims.parquet", "figures/mssa/claims.parquet", "figures/memory/claims.parquet"]
OTHER_ORDER = {"execution": {"training": {"threads": 2}, "evaluation": {"threads": 2, "chunk_size": 777},
                             "onelayer": {"theorem31": {"chunk_size": 13}}, "memory": {"planted": {"chunk_floats": 4096}}}}


# The rules whose jobs OTHER_ORDER reaches: their threads, or a chunk size their script reads
ORDER_SENSITIVE = ["train_ensemble", "evaluate_bayes", "evaluate_trained", "evaluate_ideal_softmax_convergence", "step_memory_planted",
                   "scan_fresh_loss_landscape"]


def rules_reading_order_settings(repo: Path) -> set[str]:
    """Read from the repository: the rules whose threads come from the execution block, and the rule scripts (named
    after their rules) that read a chunk size from it. The generic scoring script feeds no ledger."""
    rules_files = [*(repo / "workflow").rglob("*.smk"), *(repo / "src").rglob("*.smk")]
    threaded = {name for path in rules_files
                for name in re.findall(r'job_rule\(\s*"(\w+)",(?:(?!job_rule\().)*?threads=config\["execution"\]', path.read_text(), flags=re.S)}
    scripts = [*(repo / "workflow" / "scripts").glob("*.py"), *(repo / "src").glob("icdenoise/studies/*/workflow/scripts/*.py")]
    chunked = {path.stem for path in scripts if re.search(r'config\["execution"\].*\["chunk_\w+"\]', path.read_text())}
    return (threaded | chunked) - {"score_denoisers"}


def test_every_ledger_gives_the_same_verdicts_under_another_summation_order(repo, smoke_run, tmp_path):
    assert rules_reading_order_settings(repo) == set(ORDER_SENSITIVE)
    workdir = tmp_path / "workflow"
    shutil.copytree(smoke_run, workdir, symlinks=True)
    (workdir / "order.yaml").write_text(yaml.safe_dump(OTHER_ORDER))
    targets = list(map(smoke_target, LEDGERS))
    result = snakemake(workdir, *targets, "--forcerun", *ORDER_SENSITIVE, configfile=["config/smoke.yaml", "order.yaml"])
    assert result.returncode == 0, result.stderr[-4000:]
    ran = {line.split()[-1].rstrip(":") for line in result.stderr.splitlines() if re.match(r"^(local)?rule \w+:$", line)}
    assert set(ORDER_SENSITIVE) <= ran and {"write_onelayer_ledger", "write_memory_ledger"} <= ran, sorted(ran)
    log = (workdir / ".snakemake" / "icdenoise" / "warmstart.log").read_text()  # two-thread jobs have a server too
    assert "serving jobs of 2 threads" in log and "runs in its own process" not in log, log[-3000:]
    for ledger in LEDGERS:
        first, again = (pd.read_parquet(root / smoke_target(ledger)).set_index("claim") for root in (smoke_run, workdir))
        assert list(again.index) == list(first.index)
        differing = again.index[again["verdict"] != first["verdict"]].tolist()
        assert not differing, (f"{ledger}: verdicts moved under another summation order: "
                               + "; ".join(f"{claim} {first.loc[claim, 'verdict']} -> {again.loc[claim, 'verdict']} "
                                           f"({first.loc[claim, 'ours_mean']:.6g} -> {again.loc[claim, 'ours_mean']:.6g})"
                                           for claim in differing))
