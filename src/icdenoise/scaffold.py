"""Write a working study to start from: ``python -m icdenoise.scaffold NAME [--outside PATH]``.

The study (docs/architecture.md, "A study") scores the noisy query itself, x̂ = x̃, on each of its cases: one
compute rule writing Parquet, one figure, one claim with its registered tolerance (under query corruption
E‖x̃ − x‖²/n = σ_z², so MSE/n over σ_z² is 1) and leaderboard rows on every case (score_rule). Without
--outside it is a built-in study, src/icdenoise/studies/NAME; with it, the package PATH/NAME and the config file
PATH/NAME.yaml that registers it (merged with --configfile, PATH on PYTHONPATH) and names its own run, NAME (its
outputs under runs/NAME/). Either way its claims are locked in its folder, NAME/claims.lock. It prints the next
commands, with this environment's python and snakemake: register, commit, lock, commit the lock alone, build from
that clean commit.
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

STUDIES = Path(__file__).resolve().parent / "studies"  # the built-in studies' folder
REPO = Path(__file__).resolve().parents[2]  # the checkout's root, where the printed commands run
TAKEN = {"all", "leaderboard", "sweeps", "comparison", "report", "icdenoise", "studies"}  # names of shared target rules and packages


class ScaffoldError(ValueError):
    """The study cannot be written; the message says how to fix it."""


FILES = {
    "__init__.py": '''"""The {name} study (written by python -m icdenoise.scaffold): the noisy query itself, x̂ = x̃, against the noise
variance σ_z² on each of its cases."""
''',
    "noisy_query.py": '''"""The noisy query as a denoiser, x̂ = x̃. Under query corruption x̃ = x + z, z ~ N(0, σ_z² I_n), so its MSE per
coordinate is E‖x̃ − x‖²/n = σ_z² on every task."""

from __future__ import annotations

import numpy as np
import pandas as pd

from icdenoise.maths.denoisers import Denoiser
from icdenoise.maths.prompts import Prompts
from icdenoise.maths.scoring import evaluate_denoisers


class NoisyQuery(Denoiser):
    """x̂ = x̃."""

    def predict(self, prompts: Prompts) -> np.ndarray:
        return prompts.query[None]


def noisy_query_table(cases: dict[str, dict], prompts: int, seed: int, chunk_size: int) -> pd.DataFrame:
    """Per case (name → config block): MSE/n of x̂ = x̃ on `prompts` fresh prompts, σ_z² and their ratio."""
    tables = [evaluate_denoisers(name, block, block["L"], {{"noisy_query": NoisyQuery()}}, prompts, seed, chunk_size)
              for name, block in cases.items()]
    table = pd.concat(tables, ignore_index=True)
    table["sigma_z_sq"] = [cases[name]["corruption"]["sigma_z_sq"] for name in table["case"]]
    table["ratio"] = table["mse"] / table["sigma_z_sq"]
    return table


def leaderboard_denoisers(case: dict) -> dict[str, Denoiser]:
    """The leaderboard's row on each case."""
    return {{"{name}_noisy_query": NoisyQuery()}}
''',
    "claims.py": '''"""The {name} study's one claim: the noisy query's MSE/n is σ_z² (noisy_query.py)."""

from __future__ import annotations

import numpy as np
from scipy import stats

from icdenoise.records.claims import LEVEL, Claim, Frames, Measurement


def mse_over_noise_variance(frames: Frames, spec: dict) -> Measurement:
    """MSE/n over σ_z², one value per case. Every case is drawn from the same seed, so the cases share their noise
    draws and their errors are not independent: a t-interval over the cases would be too narrow. The interval is
    the cases' mean ± z · the mean of their Monte-Carlo standard errors, exact when the errors are perfectly
    correlated and wider otherwise."""
    table = frames["noisy_query"]
    values = table["ratio"].to_numpy()
    half = float(stats.norm.ppf(0.5 + LEVEL / 2) * (table["sem"] / table["sigma_z_sq"]).mean())
    return Measurement(values, (values.mean() - half, values.mean() + half),
                       "the cases' Monte-Carlo errors, taken as fully correlated (one noise seed)")


CLAIMS = {{
    "noisy_query_mse_is_noise_variance": Claim("noisy_query.py", "the noisy query's MSE per coordinate is σ_z²",
                                               mse_over_noise_variance),
}}
''',
    "study.py": '''"""The {name} study's registration."""

from icdenoise.pipeline.registry import Study
from icdenoise.pipeline.resources import light

from .claims import CLAIMS


def problems(config: dict) -> list[str]:
    return [f"{name}.cases: {{case!r}} is not a configured case with query corruption (allowed: {{', '.join(config['cases'])}})"
            for case in config["{name}"]["cases"]
            if case not in config["cases"] or config["cases"][case]["corruption"]["kind"] != "query"]


STUDY = Study(
    name="{name}",
    title="The {name} study: the noisy query against σ_z²",
    claims=CLAIMS,
    problems=problems,
    sizes={{"compute_{name}": light, "score_{name}_denoisers": light}},
)
''',
    "plots/__init__.py": '''"""The {name} study's drawing."""
''',
    "plots/noisy_query.py": '''"""MSE/n of the noisy query over σ_z², per case, against 1."""

from __future__ import annotations

from icdenoise.records.figures import start_figure


def render(tables):
    table = tables["noisy_query"]
    figure, ax = start_figure(figsize=(4.5, 3.2))
    ax.errorbar(range(len(table)), table["ratio"], yerr=table["sem"] / table["sigma_z_sq"], marker="o", linestyle="none")
    ax.axhline(1.0, color="grey", linestyle="--", label="σ_z²")
    ax.set_xticks(range(len(table)), table["case"])
    ax.set_ylabel("MSE / n over σ_z²")
    ax.legend(fontsize=7)
    figure.tight_layout()
    return figure
''',
    "workflow/rules.smk": '''# The {name} study (written by python -m icdenoise.scaffold): one compute rule, one figure, one claim and
# leaderboard rows on each of its cases, each defined with the shared helpers (workflow/rules/helpers.smk).

{upper} = config["{name}"]

job_rule(
    "compute_{name}",
    "MSE/n of the noisy query x̂ = x̃ on each of the study's cases, against σ_z².",
    "scripts/compute_{name}.py",
    "<results>/{name}/noisy_query.parquet",
    params=dict(
        cases={{case: canonical(config["cases"][case]) for case in {upper}["cases"]}},
        prompts={upper}["prompts"],
        seed={upper}["seed"],
    ),
)

figure_rule(
    "plot_{name}_noisy_query",
    "{name}",
    "{name}/noisy_query",
    "MSE/n of the noisy query over σ_z², per case.",
    "{package}.plots.noisy_query",
    dict(noisy_query=rules.compute_{name}.output[0]),
    "report/noisy_query.rst",
)

ledger_rule(
    "write_{name}_ledger",
    "{name}",
    dict(noisy_query=rules.compute_{name}.output[0]),
    dict(table="<figures>/{name}/claims.parquet", text="<figures>/{name}/claims.md"),
    "report/claims.rst",
)

score_rule(
    "score_{name}_denoisers",
    "{name}",
    {upper}["cases"],
    "{package}.noisy_query:leaderboard_denoisers",
    {{}},
)
''',
    "workflow/schema.yaml": '''# The {name} study's block: joins the config schema as the property `{name}`.
{name}:
  type: object
  description: "The {name} study - the noisy query x̂ = x̃ against σ_z² on each case."
  additionalProperties: false
  required: [cases, prompts, seed, claims]
  properties:
    cases:
      type: array
      minItems: 1
      uniqueItems: true
      items: {{$ref: "#/$defs/case_name"}}
      description: "Configured cases with query corruption: the compute rule's and the leaderboard's."
    prompts: {{type: integer, minimum: 2, description: "Fresh prompts per case of the compute rule."}}
    seed: {{type: integer, minimum: 0, description: "The seed of those prompts."}}
    claims:
      type: object
      description: "The ledger - per claim id the expected value, the test and why."
      propertyNames: {{enum: [noisy_query_mse_is_noise_variance]}}
      additionalProperties: {{$ref: "#/$defs/claim"}}
''',
    "workflow/scripts/compute_{name}.py": '''"""Rule compute_{name}: MSE/n of the noisy query on each case's fresh prompts, against σ_z²."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from {package}.noisy_query import noisy_query_table

from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet

log = start_job(snakemake)
params = snakemake.params
table = noisy_query_table(params.cases, params.prompts, params.seed, snakemake.config["execution"]["evaluation"]["chunk_size"])
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("MSE/n over σ_z²:\\n%s", table[["case", "mse", "sigma_z_sq", "ratio"]].to_string(index=False))
''',
    "workflow/report/noisy_query.rst": '''The {name} study: MSE per coordinate of the noisy query x̂ = x̃ over σ_z², on
{{{{ snakemake.config["{name}"]["prompts"] }}}} fresh prompts of each case of {{{{ snakemake.config["{name}"]["cases"] | join(", ") }}}},
with its standard error; the dashed line is 1, the closed form.
''',
    "workflow/report/claims.rst": '''The {name} study's claims ledger: the noisy query's MSE per coordinate against σ_z².
''',
}

BLOCK = '''# Registers the {name} study ({where}){how}.{run}
studies:
  {name}: {package}

{name}:
  cases: [linear, sphere]
  prompts: 2000
  seed: 0
  claims:
    noisy_query_mse_is_noise_variance:
      paper_value: 1.0
      comparison: within_absolute
      tolerance: 0.1
      inconclusive: []
      tolerance_reason: "MSE/n over 2000 prompts of n >= 4 coordinates has a relative standard error of about 2%: 0.1 is five of them"
'''


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
    values = {"name": name, "upper": name.upper(), "package": package}
    for relative, text in FILES.items():
        path = folder / relative.format(**values)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.format(**values))
    python = typed(Path(sys.executable), REPO)
    snakemake = snakemake_command(REPO)
    if block is None:
        text = BLOCK.format(where=f"src/icdenoise/studies/{name}", how="", run="", **values).split("\n", 1)[1]
        return [f"register it: add to config/config.yaml, under `studies:` and as a block of its own:\n{text}",
                f"{python} scripts/config_table.py > config/README.md",
                f"git add src/icdenoise/studies/{name} config && git commit -m 'the {name} study'",
                f"{python} scripts/lock_claims.py && git add src/icdenoise/studies/{name}/claims.lock && git commit -m 'the {name} claims'"
                "  # the lock in a commit of its own; build with the checkout clean",
                f"{snakemake} --cores 2 {name} leaderboard --configfile config/smoke.yaml"]
    block.write_text(BLOCK.format(where=f"{outside}/{name}", how=": merge it with --configfile, with this folder on PYTHONPATH",
                                  run=f"\n# Its run is its own, {name}: its outputs go under runs/{name}/.\nrun:\n  name: {name}\n",
                                  **values))
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


if __name__ == "__main__":
    sys.exit(main())
