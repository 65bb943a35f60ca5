import importlib.util
import os
import shutil
import subprocess

import pytest
import yaml
from runner import EXPERIMENT_CONFIGS, copy_workflow, snakemake


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


SECOND_RUN = {"run": {"name": "smoke_seed7"}, "dataset": {"seed": 7}}  # the smoke config with other datasets, under its own name
SECOND_TARGETS = ["onelayer", "leaderboard"]  # enough of it to compare: the core study's ledger and the leaderboard
COMPARED = {"comparison": {"runs": ["smoke_seed7"], "ledgers": True}}  # the smoke run set beside it, ledgers too


@pytest.fixture(scope="session")
def experiments_run(smoke_run, tmp_path_factory):
    """A copy of the finished smoke run, then: a second named run (smoke_seed7) built beside it in the same
    checkout, the plan of each run after the other was built, and the smoke run's sweeps and its comparison
    with the second run. Returns the folder and those results; the smoke run's configfiles are
    EXPERIMENT_CONFIGS."""
    workdir = tmp_path_factory.mktemp("experiments") / "workflow"
    shutil.copytree(smoke_run, workdir, symlinks=True)
    (workdir / "second.yaml").write_text(yaml.safe_dump(SECOND_RUN))
    (workdir / "compare.yaml").write_text(yaml.safe_dump(COMPARED))
    second = snakemake(workdir, *SECOND_TARGETS, configfile=["config/smoke.yaml", "second.yaml"])
    assert second.returncode == 0, second.stderr[-4000:]
    smoke_after_second = snakemake(workdir, "-n", "all")
    built = snakemake(workdir, "all", "sweeps", "comparison", configfile=EXPERIMENT_CONFIGS)
    assert built.returncode == 0, built.stderr[-4000:]
    second_after_smoke = snakemake(workdir, "-n", *SECOND_TARGETS, configfile=["config/smoke.yaml", "second.yaml"])
    return {"workdir": workdir, "smoke_after_second": smoke_after_second, "second_after_smoke": second_after_smoke, "built": built}


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


