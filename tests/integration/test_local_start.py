"""A local `snakemake` call asks SLURM nothing, so it starts as quickly with no SLURM controller as with one.

Snakemake imports every executor plugin installed beside it, on every call, and the `slurm` extra's plugin
(2.8.0) runs `scontrol show config` while it is imported (for its `--slurm-status-command` help). Where
SLURM's commands are installed but no controller answers, `scontrol` retries for about 9 s, so every call in
that environment waits 9 s. docs/cluster.md therefore installs the extra in an environment of its own
(`.venv-slurm`); the README's `.venv`, where local calls run, has none.

Here SLURM's commands are fakes, first on PATH, that note each call and take `STALL` seconds to fail, as
commands whose controller does not answer do.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import time
from pathlib import Path

import pytest
from runner import SNAKEMAKE, copy_workflow, smoke_target, snakemake

pytestmark = pytest.mark.integration

COMMANDS = ("scontrol", "sinfo", "squeue", "sacct", "sacctmgr", "sbatch", "srun", "scancel")
STALL = 5  # seconds each fake command takes before it fails
PLUGINS = ("snakemake_executor_plugin_slurm", "snakemake_executor_plugin_slurm_jobstep")  # the slurm extra's


def extra_installed() -> bool:
    return importlib.util.find_spec(PLUGINS[0]) is not None


def fake_slurm(folder: Path) -> Path:
    """SLURM's commands in `folder`, each noting its call (name and arguments) in `folder`/calls and failing
    after STALL s. Returns the log, which exists once one of them has been called."""
    folder.mkdir()
    calls = folder / "calls"
    for name in COMMANDS:
        command = folder / name
        command.write_text(f'#!/bin/sh\necho "{name} $*" >> "{calls}"\nsleep {STALL}\nexit 1\n')
        command.chmod(0o755)
    return calls


def without_the_extra(folder: Path) -> Path:
    """A folder that, first on PYTHONPATH, hides the slurm extra from Snakemake as if it were not installed (the
    README's `.venv`): a plain module of each plugin's name, found first, is what `pkgutil.iter_modules` lists under
    that name, and Snakemake's plugin registry takes packages only."""
    folder.mkdir()
    for plugin in PLUGINS:
        (folder / f"{plugin}.py").write_text("raise ImportError('the slurm extra is hidden for this test')\n")
    return folder


def environment(fakes: Path, hidden: Path | None = None) -> dict[str, str]:
    """This process's environment with the fake SLURM first on PATH and, when given, `hidden` first on PYTHONPATH."""
    paths = {"PATH": os.pathsep.join([str(fakes), os.environ.get("PATH", "")])}
    if hidden is not None:
        paths["PYTHONPATH"] = os.pathsep.join(filter(None, [str(hidden), os.environ.get("PYTHONPATH")]))
    return {**os.environ, **paths}


def timed(call):
    start = time.monotonic()
    result = call()
    return result, time.monotonic() - start


def test_a_local_dry_run_in_the_local_environment_never_calls_slurm(repo, tmp_path):
    """The README's environment (this one, with the extra hidden where it is installed, as under CI): a local
    dry run of the smoke Fig. 3 calls no SLURM command, so it never waits on a controller."""
    workdir = copy_workflow(repo, tmp_path / "workflow")
    calls = fake_slurm(tmp_path / "slurm")
    hidden = without_the_extra(tmp_path / "hidden") if extra_installed() else None
    result, seconds = timed(lambda: snakemake(workdir, "-n", smoke_target("figures/fig3.pdf"), env=environment(calls.parent, hidden)))
    print(f"local dry run: {seconds:.1f} s")  # shown by pytest -rA
    assert result.returncode == 0, result.stderr[-3000:]
    assert "This was a dry-run" in result.stdout
    assert not calls.exists(), f"a local dry run called SLURM ({seconds:.1f} s): {calls.read_text()}"


@pytest.mark.skipif(not extra_installed(), reason="the slurm extra is not installed here: nothing to compare")
def test_the_slurm_extra_makes_every_call_wait_for_scontrol_and_hiding_it_removes_the_wait(tmp_path):
    """Why docs/cluster.md keeps the extra out of the local environment. Where the extra is installed, even
    `snakemake --version` runs `scontrol show config` and waits for it; with the extra hidden, Snakemake knows
    no slurm executor and calls nothing. If a later plugin stops calling `scontrol` at import, the first
    assertion fails: the extra could then join the local environment again."""
    calls = fake_slurm(tmp_path / "slurm")
    version = [SNAKEMAKE, "--version"]
    plain, seconds = timed(lambda: subprocess.run(version, cwd=tmp_path, capture_output=True, text=True, timeout=120,
                                                 env=environment(calls.parent)))
    print(f"snakemake --version with the extra: {seconds:.1f} s")
    assert plain.returncode == 0, plain.stderr[-3000:]
    assert calls.exists() and "scontrol show config" in calls.read_text().splitlines(), \
        "the slurm plugin no longer calls scontrol as Snakemake starts: revisit docs/cluster.md's separate environment"
    assert seconds >= STALL, f"{seconds:.1f} s"

    calls.unlink()
    hidden = without_the_extra(tmp_path / "hidden")
    refused, seconds = timed(lambda: subprocess.run([SNAKEMAKE, "--executor", "slurm", "--version"], cwd=tmp_path,
                                                   capture_output=True, text=True, timeout=120,
                                                   env=environment(calls.parent, hidden)))
    print(f"snakemake --version with the extra hidden: {seconds:.1f} s")
    assert refused.returncode != 0 and "invalid choice: 'slurm'" in refused.stderr, refused.stderr[-3000:]
    assert not calls.exists(), calls.read_text()
