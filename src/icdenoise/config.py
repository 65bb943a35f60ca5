"""Configuration: loading, the JSON schema, and the checks that relate several keys.

The schema is `workflow/schemas/config.schema.yaml` (the shared blocks) plus one file per study in
`workflow/schemas/studies/`, each giving the schema of that study's block; `load_schema` merges
them. `validate_config` reports every problem at once, each naming the offending key by its dotted
path and saying what is allowed: the schema's, then the cross-key checks of the shared blocks and
of every study.
"""

from __future__ import annotations

from pathlib import Path

import jsonschema
import yaml

from .architectures import DENOISES
from .corruptions import CORRUPTIONS
from .studies import STUDIES, Run


class ConfigError(ValueError):
    """The configuration is invalid; the message lists every problem found."""


def load_yaml(path: str | Path) -> dict:
    with open(path) as handle:
        return yaml.safe_load(handle)


def load_schema(schema_dir: str | Path) -> dict:
    """The core schema with each study's schema file inserted as the property named after the study.
    Study files hold ``{<study>: <schema>, $defs: {...}}``; their $defs join the core's."""
    schema_dir = Path(schema_dir)
    schema = load_yaml(schema_dir / "config.schema.yaml")
    for path in sorted((schema_dir / "studies").glob("*.schema.yaml")):
        study = load_yaml(path)
        for name, definition in study.pop("$defs", {}).items():
            if name in schema["$defs"]:
                raise ValueError(f"{path}: $defs.{name} is already defined by another schema file")
            schema["$defs"][name] = definition
        (name, block), = study.items()
        schema["properties"][name] = block
        schema["required"].append(name)
    return schema


def _dotted(path) -> str:
    return ".".join(str(part) for part in path) or "<top level>"


def _allowed(error: jsonschema.ValidationError) -> str:
    """A short statement of what the schema allows at the failing key."""
    schema = error.schema
    if error.validator == "additionalProperties":
        return "allowed keys: " + ", ".join(sorted(schema.get("properties", {})))
    if "enum" in schema:
        return "allowed values: " + ", ".join(map(str, schema["enum"]))
    if error.validator == "required":
        return "required keys: " + ", ".join(schema["required"])
    bounds = [
        f"{symbol} {schema[key]}"
        for key, symbol in (("minimum", "≥"), ("exclusiveMinimum", ">"), ("maximum", "≤"), ("exclusiveMaximum", "<"))
        if key in schema
    ]
    kind = schema.get("type")
    text = " and ".join(bounds)
    return f"allowed: {kind} {text}".rstrip() if kind or text else ""


def schema_problems(config: dict, schema: dict) -> list[str]:
    validator = jsonschema.Draft202012Validator(schema)
    problems = []
    for error in sorted(validator.iter_errors(config), key=lambda e: list(map(str, e.absolute_path))):
        key = _dotted(error.absolute_path)
        allowed = _allowed(error)
        problems.append(f"{key}: {error.message}" + (f" ({allowed})" if allowed else ""))
    return problems


def all_runs(config: dict) -> set[Run]:
    """Every training run: those the studies' figures need and the leaderboard's extra runs."""
    runs = {run for study in STUDIES.values() for run in study.runs(config)}
    extra = config["leaderboard"]["extra_runs"]
    return runs | {Run(case, model, config["cases"][case]["L"]) for case, models in extra.items() for model in models if case in config["cases"]}


def _case_problems(name: str, block: dict) -> list[str]:
    key, task = f"cases.{name}", block["task"]
    if task == "linear" and block["d"] > block["n"]:
        return [f"{key}.d: {block['d']} exceeds {key}.n = {block['n']} (allowed: 1 ≤ d ≤ n)"]
    if task == "sphere" and block["d"] + 1 > block["n"]:
        return [f"{key}.d: {block['d']} needs a {block['d'] + 1}-dim subspace but {key}.n = {block['n']} (allowed: 1 ≤ d ≤ n − 1)"]
    if task == "gmm" and block["K"] > block["L"]:
        return [f"{key}.K: {block['K']} exceeds {key}.L = {block['L']} (allowed: K ≤ L)"]
    return []


def _run_problems(config: dict) -> list[str]:
    """Every run names a configured case and model, the model denoises the case's corruption, and
    the case has its number of epochs."""
    cases, models, epochs = config["cases"], config["models"], config["training"]["epochs"]
    problems = []
    for case, run_models in config["leaderboard"]["extra_runs"].items():
        if case not in cases:
            problems.append(f"leaderboard.extra_runs.{case}: not configured under cases (configured: {', '.join(cases)})")
        problems += [f"leaderboard.extra_runs.{case}: {model!r} is not configured under models" for model in run_models if model not in models]
    for case, model, _ in sorted(all_runs(config)):
        if case not in cases or model not in models:
            continue
        corruption, architecture = cases[case]["corruption"]["kind"], models[model]["architecture"]
        if corruption not in DENOISES[architecture]:
            problems.append(f"models.{model}: a {architecture} model cannot denoise case {case!r} with {corruption} corruption "
                            f"(allowed: {', '.join(sorted(DENOISES[architecture]))})")
        if case not in epochs:
            problems.append(f"training.epochs.{case}: missing (case {case!r} is trained)")
    return sorted(set(problems), key=problems.index)


def relation_problems(config: dict) -> list[str]:
    """Constraints between keys that a JSON schema cannot express."""
    problems = [problem for name, block in config["cases"].items() for problem in _case_problems(name, block)]
    dataset, training, evaluation = config["dataset"], config["training"], config["evaluation"]
    if dataset["n_train"] >= dataset["n_prompts"]:
        problems.append(
            f"dataset.n_train: {dataset['n_train']} leaves no test prompts out of dataset.n_prompts = "
            f"{dataset['n_prompts']} (allowed: n_train < n_prompts)"
        )
    if training["batch_size"] > dataset["n_train"]:
        problems.append(f"training.batch_size: {training['batch_size']} exceeds dataset.n_train = {dataset['n_train']}")
    decay = training["lr_decay_at"]
    if list(decay) != sorted(set(decay)):
        problems.append(f"training.lr_decay_at: {decay} must be strictly increasing")
    if evaluation["seed"] == dataset["seed"]:
        problems.append(
            f"evaluation.seed: {evaluation['seed']} equals dataset.seed, so the 'fresh' prompts would repeat the dataset "
            "(allowed: any other seed)"
        )
    for study in STUDIES.values():
        problems += study.problems(config)
    if not problems:
        problems += _run_problems(config)
    return problems


def validate_config(config: dict, schema: dict) -> None:
    """Raise ConfigError naming every bad key, or return silently if `config` is valid."""
    problems = schema_problems(config, schema)
    if not problems:
        problems = relation_problems(config)
    if problems:
        listing = "\n".join(f"  - {problem}" for problem in problems)
        raise ConfigError(f"invalid configuration ({len(problems)} problem{'s' * (len(problems) > 1)}):\n{listing}")


def registry_names() -> dict[str, set[str]]:
    """The names the schema's enums must list: tasks, corruptions, model architectures and claims."""
    from .tasks import TASKS

    return {
        "task": set(TASKS),
        "corruption": set(CORRUPTIONS),
        "architecture": set(DENOISES),
        **{f"{name}.claims": set(study.claims) for name, study in STUDIES.items()},
    }
