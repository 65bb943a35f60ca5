"""Run one job's rule script outside Snakemake, in this process, for debugging: a breakpoint() in the script or in
the package stops there, and `--pdb` opens the debugger where an exception is raised.

The job is found in the workflow itself, as `snakemake` would plan it: the Snakefile is parsed with the given config
files (over config/config.yaml, as `snakemake --configfile` merges them), the DAG is built for the job's output, and
the job's `snakemake` object is made from the planned job, with the input, output, params (functions of the
wildcards evaluated), wildcards, threads, resources, log and config that Snakemake would give its script. Then the
rule's script runs here, as `__main__`, with that object as its global `snakemake`. Its inputs must exist (build them
with snakemake first); its outputs and log are written where the job's are. A job named by its output:

    python -m icdenoise.pipeline.debug_job runs/smoke/results/mssa/regression/linear/mssa/seed0/curve.parquet \\
        --configfile config/smoke.yaml

or by its rule and wildcards, `--show` printing the job's `snakemake` object without running it:

    python -m icdenoise.pipeline.debug_job train_mssa_regression regression_task=linear architecture=mssa \\
        training_seed=0 --configfile config/smoke.yaml --show

Run it from the workflow's directory (the repository's root). Nothing of Snakemake's bookkeeping happens: no lock,
no metadata in .snakemake/, no benchmark, no warm start (the job runs in this process), so a later `snakemake` run
sees outputs it did not record and may plan their job again.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import pdb
import runpy
import sys
from pathlib import Path

from icdenoise.pipeline.warmstart import SOCKET_VARIABLE, SWITCH_VARIABLE


class JobNotFound(LookupError):
    """The target names no job of the workflow, or a job that cannot run here."""


@contextlib.contextmanager
def parsed_workflow(configfiles: list[str], cores: int, workdir: Path):
    """Snakemake's Workflow object of the Snakefile in `workdir`, parsed with `configfiles` and `cores`, with the warm
    start switched off (icdenoise.pipeline.warmstart: no server starts, and a job's script runs where it is called);
    Snakemake's messages on standard output are dropped."""
    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings, StorageSettings

    os.environ[SWITCH_VARIABLE] = "0"
    os.environ.pop(SOCKET_VARIABLE, None)
    with contextlib.redirect_stdout(io.StringIO()), SnakemakeApi(OutputSettings(quiet={"all"})) as api:
        workflow_api = api.workflow(resource_settings=ResourceSettings(cores=cores),
                                    config_settings=ConfigSettings(configfiles=[Path(path).absolute() for path in configfiles]),
                                    storage_settings=StorageSettings(), snakefile=workdir / "Snakefile", workdir=workdir)
        yield workflow_api._workflow


def target_path(workflow, target: str, wildcards: dict[str, str]) -> str:
    """The output path a job is asked for by: `target` itself, or, where `target` is a rule's name, that rule's first
    output with `wildcards` filled in."""
    from snakemake.io import apply_wildcards

    if not workflow.is_rule(target):
        if wildcards:
            raise JobNotFound(f"{target} is not a rule of this workflow, so it takes no wildcards")
        return os.path.normpath(os.path.relpath(target) if os.path.isabs(target) else target)
    rule = workflow.get_rule(target)
    names = set(rule.wildcard_names)
    if names != set(wildcards):
        raise JobNotFound(f"rule {target} has the wildcards {', '.join(sorted(names)) or 'none'}; "
                          f"given: {', '.join(sorted(wildcards)) or 'none'}")
    return os.path.normpath(apply_wildcards(str(rule.output[0]), wildcards))


def planned_job(workflow, path: str):
    """The job of the workflow's DAG that writes `path`, planned as `snakemake <path>` plans it (no lock taken)."""
    from snakemake.settings.types import DAGSettings

    workflow.dag_settings = DAGSettings(targets={path})
    try:
        workflow._prepare_dag(forceall=False, ignore_incomplete=True, lock_warn_only=True, nolock=True)
        workflow._build_dag()
    except Exception as error:  # Snakemake's own: no rule makes this file, ambiguous rules, a missing source file
        raise JobNotFound(f"no job writes {path}: {error}") from error
    for job in workflow.dag.jobs:
        if path in {os.path.normpath(str(output)) for output in job.output}:
            return job
    raise JobNotFound(f"no job writes {path}")


def job_object(workflow, job):
    """(the rule's script, the `snakemake` object Snakemake gives it) of a planned job."""
    from snakemake.iocontainers import Snakemake

    script = job.rule.script
    if not script:
        raise JobNotFound(f"rule {job.rule.name} runs no script (it is a shell or run rule)")
    script = os.path.abspath(str(script))
    return script, Snakemake(job.input, job.output, job.params, job.wildcards, job.threads, job.resources, job.log,
                             workflow.config, job.rule.name, 0 if job.benchmark else None, os.path.dirname(script))


def saved_job(target: str, wildcards: dict[str, str] | None = None, configfiles: list[str] | None = None,
              cores: int | None = None, workdir: Path | None = None):
    """(script, `snakemake` object) of the job that writes `target` (an output path, or a rule's name with
    `wildcards`), in the workflow of `workdir` (default: here) parsed with `configfiles` and `cores` (default: this
    machine's)."""
    workdir = (workdir or Path.cwd()).absolute()
    with parsed_workflow(list(configfiles or []), cores or os.cpu_count() or 1, workdir) as workflow:
        job = planned_job(workflow, target_path(workflow, target, dict(wildcards or {})))
        return job_object(workflow, job)


def run_script(script: str, snakemake, post_mortem: bool = False) -> None:
    """Run a rule's `script` here as `__main__` with `snakemake` as its global, after checking that its inputs exist
    and making its outputs' and log's folders, as Snakemake does before a job; with `post_mortem`, an exception opens
    pdb where it was raised."""
    missing = [path for path in snakemake.input if not os.path.exists(path)]
    if missing:
        raise JobNotFound(f"rule {snakemake.rule}: {len(missing)} inputs do not exist yet (first: {missing[0]}); "
                          f"build them with snakemake first")
    for path in [*snakemake.output, *snakemake.log]:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    folder = os.path.dirname(script)
    if folder not in sys.path:
        sys.path.append(folder)  # as Snakemake's preamble does for a local script
    argv, sys.argv = sys.argv, [script]
    try:
        runpy.run_path(script, init_globals={"snakemake": snakemake}, run_name="__main__")
    except Exception:
        if not post_mortem:
            raise
        pdb.post_mortem(sys.exc_info()[2])
        raise
    finally:
        sys.argv = argv


def describe(script: str, snakemake) -> str:
    """The job's script and `snakemake` object, one field a line (params' long values cut short)."""
    def shown(value) -> str:
        text = repr(value)
        return text if len(text) <= 200 else f"{text[:200]}…"

    lines = [f"rule {snakemake.rule}: {script}"]
    for field in ("input", "output", "params", "wildcards", "log", "resources"):
        items = getattr(snakemake, field)
        named = dict(items.items())
        lines.append(f"{field}:")
        lines += ([f"  {name}: {shown(value)}" for name, value in named.items()] if named else
                  [f"  {shown(value)}" for value in items]) or ["  (none)"]
    lines.append(f"threads: {snakemake.threads}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog="Run from the workflow's directory (docs/running.md, \"Debugging a job\").")
    parser.add_argument("target", help="the job's output path, or its rule's name followed by its wildcards")
    parser.add_argument("wildcards", nargs="*", metavar="NAME=VALUE", help="the rule's wildcards, with a rule's name")
    parser.add_argument("--configfile", nargs="+", default=[], help="config files over config/config.yaml, as snakemake's")
    parser.add_argument("--cores", type=int, help="the cores a job's threads are capped at (default: this machine's)")
    parser.add_argument("--show", action="store_true", help="print the job's snakemake object and stop")
    parser.add_argument("--pdb", action="store_true", help="open pdb where the script raises")
    args = parser.parse_args(argv)
    wildcards = dict(item.split("=", 1) for item in args.wildcards if "=" in item)
    if len(wildcards) != len(args.wildcards):
        parser.error("wildcards are NAME=VALUE")
    try:
        script, snakemake = saved_job(args.target, wildcards, args.configfile, args.cores)
        print(describe(script, snakemake), file=sys.stderr)
        if not args.show:
            run_script(script, snakemake, post_mortem=args.pdb)
    except JobNotFound as error:
        sys.exit(f"debug_job: {error}")


if __name__ == "__main__":
    main()
