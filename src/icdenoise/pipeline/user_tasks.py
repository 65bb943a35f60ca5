"""A task of one's own, named in a case's ``task`` as ``module.path:ClassName`` (docs/experiments.md, "A task of
your own"): checked before any job, in a child interpreter, so that Snakemake's process never imports the user's
module (nor torch, should it import torch). The class must be importable (its folder on PYTHONPATH), subclass
icdenoise.maths.tasks.UserTask as a dataclass of its own, implement `sample_tokens`, take exactly the case block's
parameters, and draw well-formed prompts from the generator it is given (icdenoise.maths.estimators.user_task_report).
A task without `bayes` is no error: the case has no Bayes baseline, which `task_notices` says before any job.

The package's own tasks named this way (``icdenoise.…:Class``, e.g. the real-data prior
``icdenoise.maths.digits:Digits``) use the same interface but are judged from their class alone, in Snakemake's
process (icdenoise.maths.tasks.class_report): they run no user code, and their draws are unit-tested; this spares
every run that configures one a child interpreter (about 1.7 s).
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys

from icdenoise.maths.tasks import class_report, make_task
from icdenoise.pipeline.suggestions import nearest
from icdenoise.pipeline.user_models import module_file

_CHECK = """
import json, sys
from icdenoise.maths.estimators import user_task_report
print(json.dumps({case: user_task_report(block) for case, block in json.loads(sys.argv[1]).items()}))
"""

PACKAGE = __name__.split(".")[0]  # icdenoise


def is_user_task(task) -> bool:
    return isinstance(task, str) and ":" in task


def user_task_cases(config: dict) -> dict[str, dict]:
    """The configured cases whose task is one's own, by name."""
    return {case: block for case, block in config["cases"].items() if isinstance(block, dict) and is_user_task(block.get("task"))}


@functools.lru_cache(maxsize=8)
def inspect_tasks(cases: str) -> dict[str, dict]:
    """case → icdenoise.maths.estimators.user_task_report of its block, for the cases of `cases` (JSON: case → block),
    from one child interpreter."""
    blocks = json.loads(cases)
    if not blocks:
        return {}
    answer = subprocess.run([sys.executable, "-c", _CHECK, cases], capture_output=True, text=True)
    if answer.returncode != 0:
        reason = answer.stderr.strip().splitlines()[-1] if answer.stderr.strip() else f"exit status {answer.returncode}"
        failed = {"problems": [f"checking it failed ({reason})"], "parameters": [], "missing": [], "unknown": [], "offers": {}}
        return {case: failed for case in blocks}
    return json.loads(answer.stdout.strip().splitlines()[-1])


# The problem of a task class that its case's keys cannot build (here and icdenoise.maths.estimators.user_task_report):
# the case's block as a whole is refused, so the problem is named by the block's key and listed under the file
# merged last that sets any key of it.
UNBUILT = "cannot be built from the case's keys"


def is_package_task(task: str) -> bool:
    """Whether a task named ``module.path:ClassName`` is one of this package's own."""
    return task.split(":")[0].startswith(f"{PACKAGE}.")


def _own_task_report(block: dict) -> dict:
    """The check of one of the package's own tasks: its class (`class_report`), and that it is built from the case's
    keys (its own checks of their values)."""
    report = class_report(block)
    if not (report["problems"] or report["missing"] or report["unknown"]):
        try:
            make_task(block)
        except Exception as error:
            report["problems"] = [f"{UNBUILT} ({type(error).__name__}: {error})"]
    return report


def task_reports(config: dict) -> dict[str, dict]:
    """case → the check of its task of one's own (`inspect_tasks`; the package's own: `class_report`), for every such
    configured case."""
    cases = user_task_cases(config)
    outside = {case: block for case, block in cases.items() if not is_package_task(block["task"])}
    own = {case: _own_task_report(block) for case, block in cases.items() if is_package_task(block["task"])}
    return {**own, **inspect_tasks(json.dumps(outside, sort_keys=True))}


def _where(task: str) -> str:
    """The file of a task's module, found without importing it, or why there is none."""
    return module_file(task) or f"no module {task.split(':')[0]} on PYTHONPATH"


def task_problems(config: dict) -> list[str]:
    """Every problem of the cases whose task is one's own, each naming its key, the class with its file, and what is
    wrong or missing (a misspelt parameter gets the nearest of the class's)."""

    problems, cases = [], config["cases"]
    for case, report in task_reports(config).items():
        task = cases[case]["task"]
        named = f"{task} ({_where(task)})"
        parameters = ", ".join(report["parameters"])
        problems += [f"cases.{case}{'' if problem.startswith(UNBUILT) else '.task'}: {named}: {problem}"
                     for problem in report["problems"]]
        problems += [f"cases.{case}.{name}: missing, a parameter of the task {named} (its parameters: {parameters})"
                     for name in report["missing"]]
        for key in report["unknown"]:
            match = nearest(key, [name for name in report["parameters"] if name not in cases[case]])
            problems.append(f"cases.{case}.{key}: not a parameter of the task {named}" + (f"; did you mean {match}?" if match else "")
                            + f" (its parameters: {parameters})")
    return problems


def task_notices(config: dict) -> list[str]:
    """A notice for each case whose task of one's own (with no problem) has no Bayes posterior mean: what the
    leaderboard scores it against instead."""
    reports, cases = task_reports(config), config["cases"]
    if not reports:
        return []
    from icdenoise.records.leaderboard import NO_BAYES  # (pandas) only where a case has a task of one's own

    return [f"no Bayes baseline for task {cases[case]['task']} (case {case}): the leaderboard scores it against the zero "
            f"predictor only, and its ratio to Bayes and gap to zero read '{NO_BAYES}' (give the class a "
            f"bayes(prompts, sigma_z_sq) method for one; {_where(cases[case]['task'])})"
            for case, report in reports.items() if not report["problems"] and not report["offers"].get("bayes")]


def task_module_files(blocks) -> list[str]:
    """The module files of the tasks of one's own among the case blocks `blocks`: code inputs of the jobs that
    sample or score them, so that editing the class re-runs exactly those."""
    files = (module_file(block["task"]) for block in blocks if is_user_task(block.get("task")))
    return sorted(set(filter(None, files)))
