"""Unit tests: maths, records, plumbing and studies, each in its folder. They spawn no process: a test
that starts one (a subprocess, a fork, Snakemake) fails, and belongs in tests/integration."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).parent))  # helpers.py, for the tests in the sub-folders

# What the code under test would start a process for is done before the tests: matplotlib's font list
# (fc-list, on a machine that has none cached yet) once, Snakemake's executor plugins imported (with the
# [slurm] extra installed, its plugin runs `which sacct` when imported, so the first test in a worker that
# parses the workflow would fail, whichever test that is), and the checkout's git state (every Parquet
# written records it; cached, so again only if an integration test in this session cleared it).
import matplotlib.font_manager  # noqa: E402, F401
from snakemake_interface_executor_plugins.registry import ExecutorPluginRegistry  # noqa: E402

from icdenoise.records.artifacts import git_state  # noqa: E402

ExecutorPluginRegistry()  # collects (imports) every installed executor plugin once, in this process


@pytest.fixture(autouse=True, scope="session")
def one_thread():
    """Every unit test on one torch thread, as the pipeline's jobs run by default: the suite's two workers share CI's
    two cores with each other and with Snakemake's jobs, and tiny products split over threads of a busy machine are
    several times slower. A test of threading sets its own count."""
    torch.set_num_threads(1)


class SpawnedAProcess(OSError):
    """A unit test started a process."""


@pytest.fixture(autouse=True)
def no_processes(monkeypatch):
    """Fail a unit test that starts a process (the attempt raises, and the test fails even if it is caught)."""
    git_state()
    attempts = []

    def refuse(what, *args, **kwargs):
        attempts.append(what)
        raise SpawnedAProcess(f"unit tests spawn no processes ({what}); move this test to tests/integration")

    monkeypatch.setattr(subprocess.Popen, "_execute_child", lambda self, args, *rest: refuse(f"subprocess {args!r}"))
    monkeypatch.setattr(os, "fork", lambda: refuse("os.fork"))
    monkeypatch.setattr(os, "posix_spawn", lambda *args, **kwargs: refuse("os.posix_spawn"))
    yield
    assert not attempts, f"unit tests spawn no processes: {attempts}"
