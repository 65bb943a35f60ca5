"""The order of the Snakefile's includes changes no job: the studies' rule files in every order, with the
leaderboard's included above them, plan the jobs the shipped Snakefile plans (what one rule file
collects for another's rules is read when the DAG is built: icdenoise.pipeline.collected). Once, the
leaderboard included above the studies planned no study score job (46 jobs for `leaderboard` on the smoke
config became 44). The leaderboard above the studies is the hard case: every rule that reads what the studies
collect is then defined before any study, and the shipped Snakefile, which includes it after them, is the plan
every order must equal. Dry runs only: every order is planned in one process, by Snakemake's API (`--summary`:
each planned job's outputs and rule), on one copy of the workflow."""

import itertools
import json
import subprocess
import sys

import pytest
from runner import copy_workflow

from icdenoise.pipeline.config import load_yaml

pytestmark = pytest.mark.integration

STUDY_LOOP = "for study in STUDIES.values():"  # the Snakefile's loop over the studies' rule files
LEADERBOARD = 'include: "workflow/rules/leaderboard.smk"\n'
TARGETS = 'include: "workflow/rules/targets.smk"\n'

# argv: the config file, then the Snakefiles to plan; prints {Snakefile: [[rule, output], …]} of `all`'s jobs.
PLANS = """
import contextlib, io, json, os, sys
from pathlib import Path
from snakemake.api import SnakemakeApi
from snakemake.settings.types import (ConfigSettings, DAGSettings, OutputSettings, ResourceSettings, StorageSettings,
                                      WorkflowSettings)
from icdenoise.pipeline.warmstart import SWITCH_VARIABLE

os.environ[SWITCH_VARIABLE] = "0"  # plan only: no warm-start server
workdir, plans = Path.cwd(), {}
for snakefile in sys.argv[2:]:
    summary = io.StringIO()
    with contextlib.redirect_stdout(summary), contextlib.redirect_stderr(io.StringIO()):
        with SnakemakeApi(OutputSettings(quiet={"all"})) as api:
            api.workflow(resource_settings=ResourceSettings(cores=1), storage_settings=StorageSettings(),
                         config_settings=ConfigSettings(configfiles=[workdir / sys.argv[1]]),
                         workflow_settings=WorkflowSettings(), snakefile=workdir / snakefile,
                         workdir=workdir).dag(DAGSettings(targets={"all"})).summary()
    rows = [line.split("\\t") for line in summary.getvalue().splitlines()[1:] if line.strip()]
    plans[snakefile] = sorted([row[2], row[0]] for row in rows)
print(json.dumps(plans))
"""


def reordered(snakefile: str, studies: tuple[str, ...], first: str | None = None) -> str:
    """The Snakefile with the studies' rule files included in the order `studies`, and `first` (an include line),
    when given, moved above them."""
    assert snakefile.count(STUDY_LOOP) == 1 and (first is None or snakefile.count(first) == 1)
    loop = f"for study in [STUDIES[name] for name in {list(studies)!r}]:"
    if first is not None:
        snakefile = snakefile.replace(first, "")
        loop = f"{first}\n\n{loop}"
    return snakefile.replace(STUDY_LOOP, loop)


def test_every_order_of_the_study_and_leaderboard_includes_plans_the_same_jobs(repo, tmp_path):
    workdir = copy_workflow(repo, tmp_path / "workflow")
    studies = tuple(load_yaml(repo / "config" / "config.yaml")["studies"])
    shipped = (workdir / "Snakefile").read_text()
    orders = {f"Snakefile.{index}": reordered(shipped, order, LEADERBOARD)
              for index, order in enumerate(itertools.permutations(studies))}
    orders["Snakefile.targets_first"] = reordered(shipped, studies, TARGETS)  # the study targets too read lazily
    for name, text in orders.items():
        (workdir / name).write_text(text)
    assert len(orders) == 24 + 1 and len(studies) == 4
    result = subprocess.run([sys.executable, "-c", PLANS, "config/smoke.yaml", "Snakefile", *orders], cwd=workdir,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    plans = json.loads(result.stdout)
    expected = plans.pop("Snakefile")
    rules = {rule for rule, _ in expected}
    assert {"build_leaderboard", "score_alltoken_denoisers", "score_mssa_denoisers"} <= rules
    for name, plan in plans.items():
        missing = [job for job in expected if job not in plan]
        assert plan == expected, f"{name} plans other jobs ({len(missing)} missing, the first {missing[:3]}):\n{orders[name]}"
