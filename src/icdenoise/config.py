"""Configuration validation: the JSON schema first, then the rules that relate several keys.

All problems are collected and reported together; each names the offending key by its dotted
path and says what is allowed.
"""

from __future__ import annotations

from pathlib import Path

import jsonschema
import yaml


class ConfigError(ValueError):
    """The configuration is invalid; the message lists every problem found."""


def load_yaml(path: str | Path) -> dict:
    with open(path) as handle:
        return yaml.safe_load(handle)


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


def relation_problems(config: dict) -> list[str]:
    """Constraints between keys that a JSON schema cannot express."""
    problems = []
    cases = config["cases"]
    linear = cases.get("linear")
    if linear and linear["d"] > linear["n"]:
        problems.append(f"cases.linear.d: {linear['d']} exceeds cases.linear.n = {linear['n']} (allowed: 1 ≤ d ≤ n)")
    sphere = cases.get("sphere")
    if sphere and sphere["d"] + 1 > sphere["n"]:
        problems.append(
            f"cases.sphere.d: {sphere['d']} needs a {sphere['d'] + 1}-dim subspace but cases.sphere.n = {sphere['n']} "
            "(allowed: 1 ≤ d ≤ n − 1)"
        )
    gmm = cases.get("gmm")
    if gmm and gmm["K"] > gmm["L"]:
        problems.append(f"cases.gmm.K: {gmm['K']} exceeds cases.gmm.L = {gmm['L']} (allowed: K ≤ L)")
    dataset, training, bayes, fig3 = config["dataset"], config["training"], config["bayes"], config["fig3"]
    if dataset["n_train"] >= dataset["n_prompts"]:
        problems.append(
            f"dataset.n_train: {dataset['n_train']} leaves no test prompts out of dataset.n_prompts = "
            f"{dataset['n_prompts']} (allowed: n_train < n_prompts)"
        )
    if training["batch_size"] > dataset["n_train"]:
        problems.append(f"training.batch_size: {training['batch_size']} exceeds dataset.n_train = {dataset['n_train']}")
    for case in cases:
        if case not in training["epochs"]:
            problems.append(f"training.epochs.{case}: missing (every configured case needs its number of epochs)")
    decay = training["lr_decay_at"]
    if list(decay) != sorted(set(decay)):
        problems.append(f"training.lr_decay_at: {decay} must be strictly increasing")
    if bayes["seed"] == dataset["seed"]:
        problems.append(
            f"bayes.seed: {bayes['seed']} equals dataset.seed, so the 'fresh' prompts would repeat the dataset "
            "(allowed: any other seed)"
        )
    for case in fig3["cases"]:
        if case not in cases:
            problems.append(f"fig3.cases: {case!r} is not configured under cases (configured: {', '.join(cases)})")
    for model in fig3["models"]:
        if model not in training["models"]:
            problems.append(f"fig3.models: {model!r} is not in training.models ({', '.join(training['models'])})")
    if fig3["representative_seed"] not in training["seeds"]:
        problems.append(
            f"fig3.representative_seed: {fig3['representative_seed']} is not in training.seeds {training['seeds']}"
        )
    return problems


def validate_config(config: dict, schema: dict) -> None:
    """Raise ConfigError naming every bad key, or return silently if `config` is valid."""
    problems = schema_problems(config, schema)
    if not problems:
        problems = relation_problems(config)
    if problems:
        listing = "\n".join(f"  - {problem}" for problem in problems)
        raise ConfigError(f"invalid configuration ({len(problems)} problem{'s' * (len(problems) > 1)}):\n{listing}")
