"""One slot of a named run after another (scripts/advance_run.sh), as short GPU slots run mssa_paper_scale: real
Snakemake runs of the smoke config's MSSA training. The first slot's budget is spent at its first save point; its
checkpoint leaves in parts (the device tool brings back small files only), comes home, and continues in another copy
of the workflow to the finished tables. A tree that differs from its commit trains nothing."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from runner import SMOKE, copy_workflow

pytestmark = pytest.mark.integration

TARGET = str(SMOKE / "results/mssa/regression/linear/mssa/seed0/errors.parquet")
CHECKPOINT = Path(TARGET).parent / f".{Path(TARGET).name}.checkpoint"
ENVIRONMENT = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", "PART_BYTES": "10000"}


def _committed_copy(repo: Path, destination: Path) -> Path:
    copy_workflow(repo, destination)
    for command in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "copy"]):
        subprocess.run(["git", *command], cwd=destination, check=True)
    return destination


def _advance(repo: Path, workdir: Path, *arguments) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(repo / "scripts" / "advance_run.sh"), *map(str, arguments)], cwd=workdir,
                          env=ENVIRONMENT, capture_output=True, text=True, timeout=600)


def test_a_slot_stopped_by_its_budget_continues_in_another_copy_from_what_it_brought_home(repo, tmp_path):
    carried, first_out, second_out = tmp_path / "carried", tmp_path / "out1", tmp_path / "out2"
    first = _advance(repo, _committed_copy(repo, tmp_path / "first"), 0, first_out, carried, "config/smoke.yaml", TARGET)
    assert "checkpointed at step 1 of 20" in first.stdout + first.stderr, (first.stdout + first.stderr)[-3000:]
    parts = sorted(first_out.glob("*.checkpoint.part-*"))
    assert len(parts) >= 2 and all(part.stat().st_size <= 10000 for part in parts)
    assert not (first_out / "finished.tgz").exists()

    home = _advance(repo, tmp_path, "--home", first_out, carried)
    assert home.returncode == 0, home.stderr
    assert (carried / CHECKPOINT).read_bytes() == b"".join(part.read_bytes() for part in parts)

    second = _advance(repo, _committed_copy(repo, tmp_path / "second"), 600, second_out, carried, "config/smoke.yaml", TARGET)
    log = second.stdout + second.stderr
    assert "resuming from the checkpoint at step 1 of 20" in log and "snakemake exited with 0" in log, log[-3000:]
    assert not list(second_out.glob("*.checkpoint.part-*"))

    home = _advance(repo, tmp_path, "--home", second_out, carried)
    assert home.returncode == 0, home.stderr
    assert (carried / TARGET).is_file() and not (carried / CHECKPOINT).exists()


def test_a_tree_that_differs_from_its_commit_trains_nothing(repo, tmp_path):
    workdir = _committed_copy(repo, tmp_path / "dirty")
    with open(workdir / "config" / "smoke.yaml", "a") as config:
        config.write("# an edit not committed\n")
    refused = _advance(repo, workdir, 600, tmp_path / "out", tmp_path / "carried", "config/smoke.yaml", TARGET)
    assert refused.returncode == 1
    assert "tables trained here could not be registered, so nothing is trained. Commit first" in refused.stderr
    assert not (workdir / "runs").exists() and not any((tmp_path / "out").iterdir())
