"""The integration tests' shared runs, and how pytest-xdist shares them (pyproject.toml runs the suite with
`-n 2 --dist loadgroup --no-loadscope-reorder`).

Two load groups keep apart what must not run at once:
- `smoke`: every test that reads or runs Snakemake in the smoke run (`smoke_run`) or a copy of it, one after the
  other on one worker, as a session without xdist runs them;
- `slurm`: every test that submits jobs to the one-node SLURM, on one worker, so that no two runs share its
  node and a test waiting for its own job never waits behind another's.
Every other integration module is a group of its own; unit tests are spread one by one.
A `slurm` test also reads the smoke run's tables (to compare them with the cluster's). `runner.built_once` builds
such a folder once per session, whichever worker asks first, and hands it to the other worker when it is
complete. The `smoke` tests that write in the smoke run write only files the `slurm` tests never read (a test
that runs a job again does so in a copy).
"""

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from runner import EXPERIMENT_CONFIGS, built_once, copy_workflow, snakemake

GROUPS = {"slurm": {"slurm"}, "smoke": {"smoke_run"}}  # the group of a test using one of these fixtures; the first wins


@pytest.hookimpl(tryfirst=True)  # before xdist's own, which reads the marks into each test's id
def pytest_collection_modifyitems(items):
    """Each test using a fixture of GROUPS (directly or through another fixture) joins that xdist load group;
    every other integration test, its module's group, so that a module's tests run one after the other on one
    worker and its module-scoped fixtures are built once (a scattered module would build them on both workers,
    and again after each test of another module). The groups of GROUPS come first (a stable sort)."""
    groups = {}
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        group = next((group for group, fixtures in GROUPS.items() if fixtures & names), None)
        groups[item] = group
        if group is None and "integration" in item.nodeid.split("::")[0].split("/"):
            group = Path(item.nodeid.split("::")[0]).name
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))

    def rank(item) -> int:
        """The two long groups first, so that each starts at once on a worker of its own and the rest fill in
        beside them; in `slurm`, the tests that need no smoke run first, while the other worker builds it."""
        if groups[item] == "slurm":
            return 1 if "smoke_run" in getattr(item, "fixturenames", ()) else 0
        return 2 if groups[item] == "smoke" else 3

    items.sort(key=rank)


@pytest.hookimpl(trylast=True, specname="pytest_collection_modifyitems")  # after xdist's
def pytest_collection_modifyitems_grouped(config, items):  # pytest registers only pytest_* names
    """Under `--dist loadgroup`, xdist writes each grouped test's group into its id, which is all its scheduler
    reads. pytest 9.2 stopped honouring that write (pytest-xdist issue 1386), and the groups were then silently
    ignored: stop here instead of running the smoke and SLURM tests on both workers at once."""
    if hasattr(config, "workerinput") and config.getvalue("loadgroup"):  # in a worker, under loadgroup
        lost = [item.nodeid for item in items if item.get_closest_marker("xdist_group") and "@" not in item.nodeid]
        if lost:
            message = (f"pytest-xdist did not group {len(lost)} tests (first: {lost[0]}): this pytest breaks --dist loadgroup; "
                       "use the pytest that pyproject.toml pins, or run with -n 0")
            sys.stderr.write(f"\n{message}\n")  # xdist shows a worker's collection error as an internal error without it
            raise pytest.UsageError(message)


def build_smoke_run(repo: Path, folder: Path) -> None:
    """The smoke config's `all`, run locally with `-j 8`: more than most test machines' cores, so that
    the run also shows that a local -j never runs more threads than the machine has."""
    workdir = copy_workflow(repo, folder / "workflow")
    result = snakemake(workdir, "all", cores=("-j", "8"))
    assert result.returncode == 0, result.stderr[-4000:]
    (workdir / "snakemake.stderr").write_text(result.stderr)
    shutil.copy(workdir / ".snakemake" / "icdenoise" / "warmstart.log", workdir / "warmstart.log")  # later runs here write anew


@pytest.fixture(scope="session")
def smoke_run(repo, tmp_path_factory):
    """The finished smoke run's working directory (`build_smoke_run`), built once per session (`built_once`)."""
    return built_once(tmp_path_factory, "smoke", lambda folder: build_smoke_run(repo, folder)) / "workflow"


SECOND_RUN = {"run": {"name": "smoke_seed7"}, "dataset": {"seed": 7}}  # the smoke config with other datasets, under its own name
# Enough of it to compare: a study's ledger, with the tables it reads (its plots are not needed), and the leaderboard. The
# all-token study's ledger adds 10 jobs to the leaderboard's 50, the core study's 39.
SECOND_TARGETS = ["runs/smoke_seed7/figures/alltoken/claims.parquet", "runs/smoke_seed7/figures/alltoken/claims.md", "leaderboard"]
COMPARED = {"comparison": {"runs": ["smoke_seed7"], "ledgers": True}}  # the smoke run set beside it, ledgers too


@pytest.fixture(scope="session")
def experiments_run(smoke_run, tmp_path_factory):
    """A copy of the finished smoke run, then: a second named run (smoke_seed7) built beside it in the same
    checkout, the plan of each run after the other was built, and the smoke run's sweeps, its comparison
    with the second run and its learning-rate grid (mssa_lr_grid). Returns the folder and those results; the smoke run's configfiles are
    EXPERIMENT_CONFIGS."""
    workdir = tmp_path_factory.mktemp("experiments") / "workflow"
    shutil.copytree(smoke_run, workdir, symlinks=True)
    (workdir / "second.yaml").write_text(yaml.safe_dump(SECOND_RUN))
    (workdir / "compare.yaml").write_text(yaml.safe_dump(COMPARED))
    second = snakemake(workdir, *SECOND_TARGETS, configfile=["config/smoke.yaml", "second.yaml"])
    assert second.returncode == 0, second.stderr[-4000:]
    smoke_after_second = snakemake(workdir, "-n", "all")
    built = snakemake(workdir, "all", "sweeps", "comparison", "mssa_lr_grid", configfile=EXPERIMENT_CONFIGS)
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


