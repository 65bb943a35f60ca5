"""Write a working study to start from: ``python -m icdenoise.scaffold NAME [--outside PATH]``.

It copies the template study beside this module, `starter/` with the config file `starter.yaml` that registers it,
under the name NAME: a real study that the tests build, lint and check (tests/integration/test_starter_study.py). It
scores the noisy query itself, x̂ = x̃, on each of its cases (docs/architecture.md, "A study"): one compute rule
writing Parquet, one figure, one claim with its registered tolerance (under query corruption E‖x̃ − x‖²/n = σ_z², so
MSE/n over σ_z² is 1) and leaderboard rows on every case (score_rule). Without --outside it is a built-in study,
src/icdenoise/studies/NAME; with it, the package PATH/NAME and the config file PATH/NAME.yaml that registers it
(merged with --configfile, PATH on PYTHONPATH) and names its own run, NAME (its outputs under runs/NAME/). Either
way its claims are locked in its folder, NAME/claims.lock. It prints the next commands, with this environment's
python and snakemake: register, commit, lock, commit the lock alone, build from that clean commit.
"""

from __future__ import annotations

import argparse
import importlib.util
import keyword
import re
import shlex
import sys
from pathlib import Path

from icdenoise.pipeline.named_runs import snakemake_command, typed

STUDIES = Path(__file__).resolve().parents[1] / "studies"  # the built-in studies' folder
REPO = Path(__file__).resolve().parents[3]  # the checkout's root, where the printed commands run
TAKEN = {"all", "leaderboard", "sweeps", "comparison", "report", "icdenoise", "studies"}  # names of shared target rules and packages


class ScaffoldError(ValueError):
    """The study cannot be written; the message says how to fix it."""


TEMPLATE = Path(__file__).resolve().parent  # the template study `starter` and the config file that registers it
NAME = "starter"  # the template study's name: its package, its config block, its rules' and files' names
TEMPLATE_RUN = ("# Its run is its own, {name}: its outputs go under runs/{name}/.\n"
                "run:\n  name: {name}\n\n")  # what an outside study's config file adds to the template's


class Renamed:
    """The template's names made the study's: `NAME.` before one of its modules becomes the package's name (for a
    built-in study icdenoise.studies.NAME; `NAME.cases`, a config key, stays a name), the upper-case NAME the
    study's, then every other NAME."""

    def __init__(self, name: str, package: str):
        self.name, self.package = name, package
        modules = sorted(path.stem for path in (TEMPLATE / NAME).iterdir() if path.suffix == ".py" or path.is_dir())
        self.module = re.compile(rf"\b{NAME}\.(?=(?:{'|'.join(modules)})\b)")

    def __call__(self, text: str) -> str:
        text = self.module.sub(f"{self.package}.", text)
        return text.replace(NAME.upper(), self.name.upper()).replace(NAME, self.name)


def template_files() -> list[Path]:
    """The template study's files, relative to its folder (no cache, no lock)."""
    folder = TEMPLATE / NAME
    return sorted(path.relative_to(folder) for path in folder.rglob("*")
                  if path.is_file() and "__pycache__" not in path.parts and path.name != "claims.lock")


def config_block(renamed: Renamed) -> str:
    """The template's config file from its `studies:` line on, renamed: the block that registers the study."""
    text = (TEMPLATE / f"{NAME}.yaml").read_text()
    text = text[text.index("studies:\n"):].replace(f"  {NAME}: {NAME}\n", f"  {NAME}: {renamed.package}\n", 1)
    return renamed(text)


def check_name(name: str, folder: Path) -> None:
    """Refuse a name that is no lowercase identifier, a built-in study's or a shared target's, or a folder that exists."""
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name) or keyword.iskeyword(name):
        raise ScaffoldError(f"{name!r} is not a study name: use lowercase letters, digits and underscores, starting with a "
                            "letter, and no Python keyword (e.g. my_study)")
    if name in TAKEN or (STUDIES / name).exists() and folder != STUDIES / name:
        raise ScaffoldError(f"{name!r} is already taken (a built-in study, a shared target or a package): choose another name")
    if folder.parent != STUDIES and importlib.util.find_spec(name) is not None:
        raise ScaffoldError(f"{name!r} is already an importable module, which the study's package would hide or be hidden by: "
                            "choose another name")
    if folder.exists():
        raise ScaffoldError(f"{folder} already exists: choose another name, or remove that folder first")


def scaffold(name: str, outside: Path | None = None, studies: Path = STUDIES) -> list[str]:
    """Write the study `name` (in `studies`, or as the package `outside`/NAME with `outside`/NAME.yaml) and return
    the next commands to run, in order."""
    outside = outside.resolve() if outside is not None else None
    folder = (outside if outside is not None else studies) / name
    check_name(name, folder)
    block = outside / f"{name}.yaml" if outside is not None else None
    if block is not None and block.exists():
        raise ScaffoldError(f"{block} already exists: choose another name, or remove that file first")
    package = name if outside is not None else f"icdenoise.studies.{name}"
    renamed = Renamed(name, package)
    for relative in template_files():
        path = folder / renamed(relative.as_posix())
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(renamed((TEMPLATE / NAME / relative).read_text()))
    python = typed(Path(sys.executable), REPO)
    snakemake = snakemake_command(REPO)
    if block is None:
        return [f"register it: add to config/config.yaml, under `studies:` and as a block of its own:\n{config_block(renamed)}",
                f"{python} scripts/config_table.py > config/README.md",
                f"git add src/icdenoise/studies/{name} config && git commit -m 'the {name} study'",
                f"{python} scripts/lock_claims.py && git add src/icdenoise/studies/{name}/claims.lock && git commit -m 'the {name} claims'"
                "  # the lock in a commit of its own; build with the checkout clean",
                f"{snakemake} --cores 2 {name} leaderboard --configfile config/smoke.yaml"]
    block.write_text(f"# Registers the {name} study ({folder}): merge it with --configfile, with {outside} on "
                     f"PYTHONPATH.\n{TEMPLATE_RUN.format(name=name)}{config_block(renamed)}")
    configs = f"config/smoke.yaml {shlex.quote(str(block))}"
    git = f"git -C {shlex.quote(str(outside))}"
    lock = shlex.quote(f"{name}/claims.lock")
    return [f"registered by {block} (merged with --configfile; {outside} on PYTHONPATH), as the run {name} (runs/{name}/)",
            *([] if in_git_repository(outside) else [f"{git} init  # the study's claims are registered in a git repository"]),
            f"{git} add {shlex.quote(name)} {shlex.quote(block.name)} && {git} commit -m 'the {name} study'",
            f"PYTHONPATH={shlex.quote(str(outside))} {python} scripts/lock_claims.py --configfile {configs}  # writes {folder / 'claims.lock'}",
            f"{git} add {lock} && {git} commit -m 'the {name} claims'  # the lock in a commit of its own; build with both "
            "checkouts clean",
            f"PYTHONPATH={shlex.quote(str(outside))} {snakemake} --cores 2 {name} leaderboard --configfile {configs}"]


def in_git_repository(folder: Path) -> bool:
    """Whether `folder` or a folder above it holds a `.git` (a repository's, or a worktree's file)."""
    return any((parent / ".git").exists() for parent in (folder, *folder.parents))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m icdenoise.scaffold", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("name", help="the study's name: its config block, its target rule and its package")
    parser.add_argument("--outside", type=Path, metavar="PATH", help="write it as PATH/NAME with PATH/NAME.yaml, outside this package")
    arguments = parser.parse_args(argv)
    try:
        steps = scaffold(arguments.name, arguments.outside)
    except (ScaffoldError, OSError) as error:
        print(f"scaffold: {error}", file=sys.stderr)
        return 2
    where = arguments.outside / arguments.name if arguments.outside else STUDIES / arguments.name
    print(f"wrote the {arguments.name} study in {where}. Next, from the repository's root:")
    print("\n".join(f"  {number}. {step}" for number, step in enumerate(steps, 1)))
    return 0
