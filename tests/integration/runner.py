"""Running the real `snakemake` command on a temporary copy of the workflow."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from filelock import FileLock

SNAKEMAKE = str(Path(sys.executable).parent / "snakemake")
SMOKE = Path("runs") / "smoke"  # the smoke config's run: its results/, figures/, logs/ and benchmarks/ (config/smoke.yaml)


def smoke_target(path: str) -> str:
    """A smoke-run output's path as a target (relative to the working directory)."""
    return f"{SMOKE.as_posix()}/{path}"


# The figures that draw their study's claims ledger (its slopes, records.figures.draw_ledger_slope): a change that
# rebuilds the ledger re-renders them too.
LEDGER_FIGURES = ["memory/planted", "memory/factual"]


def figure_files(figure: str) -> set[str]:
    """A figure's outputs as smoke targets: its PDF and, beside it, the PNG the report shows."""
    return {smoke_target(f"figures/{figure}.{kind}") for kind in ("pdf", "png")}


# The SLURM profile as the tests run it: the executor plugin checks a job first `slurm-init-seconds-before-status-checks`
# after its submission or the last job's end (the profile's 5), then 10 s later each time no job has ended. The
# tests' jobs take seconds, so the first check comes after 1 s; nothing else differs from profiles/slurm.
SLURM_PROFILE = ["--profile", "profiles/slurm", "--slurm-init-seconds-before-status-checks", "1"]
EXPERIMENT_CONFIGS = ["config/smoke.yaml", "compare.yaml"]  # the smoke run set beside a second run (conftest.experiments_run)


def snakemake(workdir: Path, *args: str, configfile: str | list[str] = "config/smoke.yaml", cores: tuple[str, ...] = ("--cores", "2"),
              timeout: int = 900, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """`snakemake` in `workdir` with `configfile` (one file, or several merged in order) over config/config.yaml;
    `env`, when given, is its whole environment."""
    configfiles = [configfile] if isinstance(configfile, str) else configfile
    return subprocess.run(
        [SNAKEMAKE, *args, *cores, "--configfile", *configfiles],  # --configfile last: it takes several values
        cwd=workdir, capture_output=True, text=True, timeout=timeout, env=env,
    )


SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"  # figure_table.load_workflow parses a workflow
RULES_AS_PARSED = """
import json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from figure_table import load_workflow
workflow = load_workflow(Path.cwd(), sys.argv[3:], cache=sys.argv[2] == "cache")
print(json.dumps({rule.name: dict(
    output=[str(path) for path in rule.output], log=[str(path) for path in rule.log],
    input=[name for name, _ in rule.input._allitems()],
    cached=bool(rule.cache and rule.cache.output),
    params={name: value for name, value in rule.params.items() if isinstance(value, str)},
) for rule in workflow.rules}))
"""


def parsed_rules(workdir: Path, configfile: str | list[str] = "config/smoke.yaml", cache: bool = False,
                 env: dict[str, str] | None = None) -> dict[str, dict]:
    """Every rule of the workflow in `workdir` as Snakemake parses it with `configfile` (one file, or several merged
    in order) over config/config.yaml, and with `cache` as `snakemake --cache` parses it: name → its output and log
    patterns (`output`, `log`), the names of its inputs (`input`; None for an unnamed one or an input function),
    whether its jobs are kept in the between-workflow cache (`cached`, only with `cache`) and its params whose values
    are text (`params`). Parsed in a fresh process (`env`, when given, its whole
    environment): Snakemake's API changes directory, and the workflow sets environment variables."""
    configfiles = [configfile] if isinstance(configfile, str) else configfile
    parsed = subprocess.run([sys.executable, "-c", RULES_AS_PARSED, str(SCRIPTS), "cache" if cache else "", *configfiles],
                            cwd=workdir, capture_output=True, text=True, timeout=300, env=env)
    assert parsed.returncode == 0, parsed.stderr[-3000:]
    return json.loads(parsed.stdout)


def built_once(tmp_path_factory, name: str, build: Callable[[Path], None]) -> Path:
    """The folder `name`, built by `build(folder)` once per test session: the first worker to ask builds it, under
    a lock that the others wait on, and it counts as built only once `build` has returned (a failed build is
    removed, and the next worker to ask tries again and fails with its own error)."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # every worker's base folder lies in the session's
    folder, done = shared / name, shared / f"{name}.built"
    with FileLock(shared / f"{name}.lock"):
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            try:
                build(folder)
            except BaseException:
                shutil.rmtree(folder, ignore_errors=True)
                raise
            done.touch()
    return folder


WORKFLOW_FILES = ("workflow", "config", "profiles")  # besides the Snakefile; the studies' rules come with the package


def copy_workflow(repo: Path, destination: Path) -> Path:
    destination.mkdir()
    shutil.copy(repo / "Snakefile", destination)
    for folder in WORKFLOW_FILES:
        shutil.copytree(repo / folder, destination / folder)
    return destination


def merged_config(repo: Path, configfile: str = "config/smoke.yaml") -> dict:
    """config/config.yaml with `configfile` merged over it, as `snakemake --configfile` merges them."""
    from snakemake.utils import update_config

    from icdenoise.pipeline.config import load_yaml

    config = load_yaml(repo / "config" / "config.yaml")
    update_config(config, load_yaml(repo / configfile))
    return config


def planned_jobs(result: subprocess.CompletedProcess) -> list[tuple[str, list[str]]]:
    """(rule, outputs) of every job a dry run plans, in the plan's order."""
    jobs, rule = [], None
    for line in result.stdout.splitlines():
        started = re.fullmatch(r"(?:local)?rule (\w+):", line.strip())
        if started:
            rule = started.group(1)
        elif rule and line.strip().startswith("output:"):
            jobs.append((rule, [path.strip() for path in line.split(":", 1)[1].split(",")]))
            rule = None
    return jobs


def planned_outputs(result: subprocess.CompletedProcess) -> set[str]:
    """Output files of the jobs a dry run plans."""
    return {
        path.strip()
        for line in result.stdout.splitlines()
        if line.strip().startswith("output:")
        for path in line.split(":", 1)[1].split(",")
    }


def planned_blocks(result: subprocess.CompletedProcess) -> list[dict[str, str]]:
    """Every job a dry run plans, in the plan's order, as its block's fields: `rule`, and each `key: value` line
    (output, wildcards, priority, reason, …) as printed."""
    blocks, job = [], None
    for line in result.stdout.splitlines() + [""]:
        started = re.fullmatch(r"(?:local)?rule (\w+):", line.strip())
        if started or not line.strip():
            if job:
                blocks.append(job)
            job = {"rule": started.group(1)} if started else None
        elif job and ":" in line:
            key, value = line.strip().split(":", 1)
            job[key] = value.strip()
    return blocks


def planned_priorities(result: subprocess.CompletedProcess) -> dict[tuple[str, str], int]:
    """(rule, wildcards) → priority of every job a dry run plans (0 where the plan names none)."""
    return {(job["rule"], job.get("wildcards", "")): int(job.get("priority", 0)) for job in planned_blocks(result)}


def most_jobs_at_once(log: str) -> int:
    """The largest number of jobs running at one time, from a Snakemake log's timestamped job starts
    ("rule X:" after a timestamp line) and "Finished jobid: N" lines. Timestamps have one-second
    resolution: at a tie, finishes count before starts, so overlaps are never invented."""
    events, stamp = [], None
    for line in log.splitlines():
        stamped = re.fullmatch(r"\[(\w{3} \w{3} +\d+ [\d:]+ \d{4})\]", line.strip())
        if stamped:
            stamp = datetime.strptime(stamped.group(1), "%a %b %d %H:%M:%S %Y")
        elif stamp and re.fullmatch(r"(local)?rule \w+:", line.strip()):
            events.append((stamp, 1))
        elif line.strip().startswith("Finished jobid:"):
            events.append((stamp, -1))
    running = most = 0
    for _, change in sorted(events):
        running += change
        most = max(most, running)
    return most
