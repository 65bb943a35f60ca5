import importlib.util
import os
import shutil
import subprocess

import pytest
from runner import copy_workflow, snakemake


@pytest.fixture(scope="session")
def smoke_run(repo, tmp_path_factory):
    """The smoke config's `all`, run locally with `-j 8`: more than most test machines' cores, so that
    the run also shows that a local -j never runs more threads than the machine has."""
    workdir = copy_workflow(repo, tmp_path_factory.mktemp("smoke") / "workflow")
    result = snakemake(workdir, "all", cores=("-j", "8"))
    assert result.returncode == 0, result.stderr[-4000:]
    (workdir / "snakemake.stderr").write_text(result.stderr)
    shutil.copy(workdir / ".snakemake" / "icdenoise" / "warmstart.log", workdir / "warmstart.log")  # later runs here write anew
    return workdir


def unavailable_reason() -> str | None:
    if importlib.util.find_spec("snakemake_executor_plugin_slurm") is None:
        return "the slurm extra is not installed: pip install -e '.[slurm]'"
    if shutil.which("sinfo") is None:
        return "no SLURM commands on this machine: run `sudo scripts/slurm/start_local_cluster.sh`"
    answer = subprocess.run(["sinfo", "--noheader", "--responding", "--states=idle,mixed,allocated"],
                            capture_output=True, text=True, timeout=30)
    if answer.returncode != 0 or not answer.stdout.strip():
        return f"no SLURM node answers ({answer.stderr.strip() or 'sinfo lists none'}): run `sudo scripts/slurm/start_local_cluster.sh`"
    return None


@pytest.fixture(scope="session")
def slurm():
    """A one-node SLURM that answers (scripts/slurm/start_local_cluster.sh); skip without one, fail under CI."""
    reason = unavailable_reason()
    if reason and os.environ.get("ICDENOISE_REQUIRE_SLURM") == "1":
        pytest.fail(f"SLURM is required here (ICDENOISE_REQUIRE_SLURM=1) but {reason}")
    if reason:
        pytest.skip(reason)


