"""A user's own model class, named in the config's ``models.<name>.architecture`` as ``module.path:ClassName``
(docs/experiments.md): checked before any job, in a child interpreter, so that Snakemake's process never imports
torch. The class must be importable (the user's folder on PYTHONPATH), subclass
icdenoise.maths.models.EnsembleModel, implement its interface and say which corruptions it denoises.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import subprocess
import sys

from icdenoise.maths.architectures import DENOISES

_CHECK = """
import importlib, json, sys
from icdenoise.maths.models import interface_problems
found = {}
for architecture in sys.argv[1:]:
    module, name = architecture.split(":")
    try:
        cls = getattr(importlib.import_module(module), name)
    except Exception as error:
        found[architecture] = {"problems": [f"cannot import it ({type(error).__name__}: {error}; is its folder on PYTHONPATH?)"], "denoises": []}
        continue
    found[architecture] = {"problems": interface_problems(cls), "denoises": sorted(getattr(cls, "denoises", ()))}
print(json.dumps(found))
"""


def is_user_class(architecture) -> bool:
    return isinstance(architecture, str) and ":" in architecture


def user_architectures(config: dict) -> tuple[str, ...]:
    """The user classes the config's models name, sorted."""
    return tuple(sorted({block["architecture"] for block in config["models"].values() if is_user_class(block.get("architecture"))}))


@functools.lru_cache(maxsize=8)
def inspect_classes(architectures: tuple[str, ...]) -> dict[str, dict]:
    """architecture → {"problems": [...], "denoises": [...]}, from one child interpreter (torch is imported there)."""
    if not architectures:
        return {}
    answer = subprocess.run([sys.executable, "-c", _CHECK, *architectures], capture_output=True, text=True)
    if answer.returncode != 0:
        reason = answer.stderr.strip().splitlines()[-1] if answer.stderr.strip() else f"exit status {answer.returncode}"
        return {architecture: {"problems": [f"checking it failed ({reason})"], "denoises": []} for architecture in architectures}
    return json.loads(answer.stdout.strip().splitlines()[-1])


def denoised_by(architecture: str, config: dict) -> frozenset[str] | None:
    """The corruptions an architecture denoises; None for a user's class that failed its check."""
    if not is_user_class(architecture):
        return DENOISES[architecture]
    found = inspect_classes(user_architectures(config))[architecture]
    return None if found["problems"] else frozenset(found["denoises"])


def class_problems(config: dict) -> list[str]:
    """Every problem of the user classes the config's models name, by model key."""
    found = inspect_classes(user_architectures(config))
    return [f"models.{model}.architecture: {block['architecture']}: {problem}"
            for model, block in config["models"].items() if is_user_class(block.get("architecture"))
            for problem in found[block["architecture"]]["problems"]]


def module_file(architecture: str) -> str | None:
    """The file of a user class's module (a code input of the jobs that train or score it), found without importing it."""
    spec = importlib.util.find_spec(architecture.split(":")[0])
    return spec.origin if spec is not None and spec.origin not in (None, "built-in", "frozen") else None
