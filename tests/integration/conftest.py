import shutil

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
