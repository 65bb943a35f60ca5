"""Named runs: every output of a run under its own root, so that two settings sit side by side.

A run is named by the config's ``run.name``. The run that ``config/config.yaml`` names (the papers'
settings, ``paper``) writes at the top of the working directory: ``results/``, ``figures/``, ``logs/``
and ``benchmarks/``, so that the mission's targets keep their paths (``figures/fig3.pdf``). Any other
run writes the same four folders under ``runs/<name>/``. Rules write their paths with Snakemake's path
variables (``<results>/…``, ``<figures>/…``, ``<logs>/…``, ``<benchmarks>/…``), which `path_variables`
fills for the run; every job's metadata lives in the one ``.snakemake`` of the working directory, keyed
by these distinct paths, so building one run never invalidates another. By default nothing is shared between
runs: two runs with an equal dataset each draw it, and a run's folder holds everything its figures were built
from; under `snakemake --cache` equal datasets, trainings and closed forms come from Snakemake's between-workflow
cache instead. docs/caching.md has the details.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

import yaml

from icdenoise.pipeline.config import ConfigError, config_errors_end_the_run

RUNS_FOLDER = "runs"
FOLDERS = ("results", "figures", "logs", "benchmarks")  # the path variables of every run


def run_root(name: str, base_name: str) -> str:
    """The folder a run's outputs go under, "" for the run config/config.yaml names (`base_name`), else
    ``runs/<name>/``."""
    return "" if name == base_name else f"{RUNS_FOLDER}/{name}/"


def configured_root(base_file: str | Path, configfiles=()) -> str:
    """The root of the run that `snakemake --configfile <configfiles>` builds with the workflow's config/config.yaml
    `base_file`: the last file naming a run wins, as Snakemake merges them (for scripts that read a run's outputs)."""
    base = named_run(base_file)
    name = base
    for path in configfiles:
        name = named_run(path) or name
    return run_root(name, base)


def named_run(path: str | Path) -> str | None:
    """The run a config file names (its `run.name`), None if it names none."""
    return ((yaml.safe_load(Path(path).read_text()) or {}).get("run") or {}).get("name")


def path_variables(root: str) -> dict[str, str]:
    """Snakemake path variable → its folder for a run rooted at `root`."""
    return {folder: f"{root}{folder}" for folder in FOLDERS}


def in_run(path: str, run: str, base_name: str) -> str:
    """A path written with path variables (<results>/…, <figures>/…) in run `run`'s folders."""
    for folder, value in path_variables(run_root(run, base_name)).items():
        path = path.replace(f"<{folder}>", value)
    return path


def compared_tables(runs: list[str], current: str, base_name: str, ledgers: dict[str, str]) -> list[tuple[str, str, str]]:
    """(run, study, path) of every leaderboard (study "") and ledger (`ledgers`: study → its table's path, with path
    variables) that `snakemake comparison` stacks: all of the current run's (paths left as patterns its rules
    build), and those each other run has built. Another run without a leaderboard is a ConfigError that says how
    to build it."""
    tables = []
    for run in runs:
        place = (lambda path: path) if run == current else (lambda path, run=run: in_run(path, run, base_name))
        board = place("<figures>/leaderboard.parquet")
        if run != current and not Path(board).is_file():
            raise ConfigError(f"comparison.runs: run {run!r} has no {board}; {how_to_build(run, place('<results>/config.yaml'))}")
        tables.append((run, "", board))
        tables += [(run, study, place(ledger)) for study, ledger in ledgers.items()
                   if run == current or Path(place(ledger)).is_file()]
    return tables


def compared_in_workflow(runs: list[str], current: str, base_name: str, ledgers: dict[str, str]) -> list[tuple[str, str, str]]:
    """`compared_tables` as the comparison rule's input functions call it: a compared run not built yet ends
    Snakemake with the message alone (`config_errors_end_the_run`), not an InputFunctionException with its
    traceback."""
    with config_errors_end_the_run():
        return compared_tables(runs, current, base_name, ledgers)


def how_to_build(run: str, saved: str, folder: Path = Path("config")) -> str:
    """How to build run `run`'s leaderboard: with its saved config `saved`, else with a file of `folder` whose
    `run.name` is `run` (several files: each command), else that no config names it."""
    if Path(saved).is_file():
        files = [Path(saved)]
    else:
        files = sorted(path for path in folder.glob("*.yaml") if named_run(path) == run)
    snakemake = snakemake_command()
    if not files:
        return (f"no saved {saved} and no file in {folder}/ names it (run: {{name: {run}}}): check the name, or write its "
                f"config and build it with {snakemake} --cores 2 leaderboard --configfile <that file>")
    return "build it first: " + " or ".join(f"{snakemake} --cores 2 leaderboard --configfile {path}" for path in files)


def snakemake_command(at: Path | None = None) -> str:
    """The snakemake to name in a command to run in folder `at` (default: the working directory): the one running,
    else the one beside this Python (a virtual environment's bin/), as `typed`; else the README's
    `.venv/bin/snakemake`."""
    running = Path(sys.argv[0]) if sys.argv and Path(sys.argv[0]).name == "snakemake" else None
    for path in (running, Path(sys.executable).parent / "snakemake"):
        if path is not None and path.is_file():
            return typed(path, at)
    return "snakemake" if shutil.which("snakemake") else ".venv/bin/snakemake"


def typed(program: Path, at: Path | None = None) -> str:
    """How to type `program` at a prompt in folder `at` (default: the working directory): its bare name when PATH
    finds that very file (no link followed: a virtual environment's python links to one that lacks its packages),
    else its path, relative when under `at`."""
    program, at = Path(os.path.abspath(program)), Path(os.path.abspath(at or Path.cwd()))
    found = shutil.which(program.name)
    if found is not None and Path(os.path.abspath(found)) == program:
        return program.name
    shown = os.path.relpath(program, at) if program.is_relative_to(at) else str(program)
    return shlex.quote(shown if os.sep in shown else f".{os.sep}{shown}")


def saved_config_path(root: str) -> Path:
    """Where a run's merged config is saved: <results>/config.yaml."""
    return Path(path_variables(root)["results"]) / "config.yaml"


def save_config(config: dict, path: str | Path) -> Path:
    """Write the merged config to `path` (YAML, keys in the config's order), atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True))
    partial.replace(path)
    return path


def unnamed_changes(config: dict, base: dict) -> list[str]:
    """The top-level keys whose values differ from config/config.yaml's while the run keeps its name: such a
    run writes over the papers' results under the papers' run name. The execution block (how jobs run, which
    changes no number) is not such a key."""
    if config.get("run") != base.get("run"):
        return []
    return [key for key in dict.fromkeys([*base, *config]) if key != "execution" and config.get(key) != base.get(key)]


def run_prefix(run: str, base_run: str) -> str:
    """The prefix of a run's lines in each study's claims.lock (icdenoise.records.registration): none for the base
    run (config/config.yaml's), `<run>/` for the others."""
    return "" if run == base_run else f"{run}/"
