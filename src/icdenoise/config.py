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


def trained_runs(config: dict) -> set[tuple[str, str]]:
    """(case, model) pairs that some figure trains."""
    runs = {(case, model) for case in config["fig3"]["cases"] for model in config["fig3"]["models"]}
    runs |= {(config["fig4a"]["case"], config["fig4a"]["model"]), (config["fig4b"]["case"], config["fig4b"]["model"])}
    runs |= {(config["fig8"]["case"], model) for model in config["fig8"]["models"]}
    runs |= set(config["fig1"]["cases"].items())
    return runs


def _case_problems(name: str, block: dict) -> list[str]:
    key, task = f"cases.{name}", block["task"]
    if task == "linear" and block["d"] > block["n"]:
        return [f"{key}.d: {block['d']} exceeds {key}.n = {block['n']} (allowed: 1 ≤ d ≤ n)"]
    if task == "sphere" and block["d"] + 1 > block["n"]:
        return [f"{key}.d: {block['d']} needs a {block['d'] + 1}-dim subspace but {key}.n = {block['n']} (allowed: 1 ≤ d ≤ n − 1)"]
    if task == "gmm" and block["K"] > block["L"]:
        return [f"{key}.K: {block['K']} exceeds {key}.L = {block['L']} (allowed: K ≤ L)"]
    return []


def _reference_problems(config: dict) -> list[str]:
    """Figure blocks must name configured cases of the right task, trained models and seeds."""
    cases, training = config["cases"], config["training"]
    problems = []

    def check_case(key: str, case: str, task: str | None = None, n: int | None = None) -> None:
        if case not in cases:
            problems.append(f"{key}: {case!r} is not configured under cases (configured: {', '.join(cases)})")
        elif task and cases[case]["task"] != task:
            problems.append(f"{key}: {case!r} is a {cases[case]['task']} case (allowed: a {task} case)")
        elif n and cases[case]["n"] != n:
            problems.append(f"{key}: {case!r} has n = {cases[case]['n']} (allowed: n = {n})")

    def check_model(key: str, model: str, allowed: list[str]) -> None:
        if model not in allowed:
            problems.append(f"{key}: {model!r} is not in {', '.join(allowed)}")

    def check_seed(key: str, seed: int) -> None:
        if seed not in training["seeds"]:
            problems.append(f"{key}: {seed} is not in training.seeds {training['seeds']}")

    for case in config["fig3"]["cases"]:
        check_case("fig3.cases", case)
    for model in config["fig3"]["models"]:
        check_model("fig3.models", model, training["models"])
    check_seed("fig3.representative_seed", config["fig3"]["representative_seed"])
    for case, model in config["fig1"]["cases"].items():
        check_case("fig1.cases", case, n=3)
        check_model(f"fig1.cases.{case}", model, training["models"])
    if config["fig1"]["representative_seed"] != "best":
        check_seed("fig1.representative_seed", config["fig1"]["representative_seed"])
    if config["fig1"]["test_prompt"] >= config["dataset"]["n_prompts"] - config["dataset"]["n_train"]:
        problems.append(f"fig1.test_prompt: {config['fig1']['test_prompt']} is not below the number of test prompts")
    if config["fig2"]["case"] not in config["fig1"]["cases"]:
        problems.append(f"fig2.case: {config['fig2']['case']!r} is not in fig1.cases ({', '.join(config['fig1']['cases'])})")
    check_case("fig2.case", config["fig2"]["case"], task="linear")
    for figure in ("fig4a", "fig4b"):
        check_case(f"{figure}.case", config[figure]["case"], task="linear")
        check_model(f"{figure}.model", config[figure]["model"], training["models"])
    if len(config["fig4a"]["context_lengths"]) < 2:
        problems.append("fig4a.context_lengths: the power-law fit needs at least 2 lengths")
    if config["fig4b"]["case"] in cases and max(config["fig4b"]["subspace_dims"]) > cases[config["fig4b"]["case"]]["n"]:
        problems.append(f"fig4b.subspace_dims: {max(config['fig4b']['subspace_dims'])} exceeds the case's n")
    if config["fig4b"]["seed"] == config["dataset"]["seed"]:
        problems.append("fig4b.seed: equals dataset.seed, so the 'fresh' prompts would repeat the dataset (allowed: any other seed)")
    check_case("fig5.case", config["fig5"]["case"], task="sphere", n=2)
    if 1 not in config["fig5"]["step_counts"]:
        problems.append(f"fig5.step_counts: {config['fig5']['step_counts']} must include 1 (the attention step)")
    for figure in ("fig6", "fig7"):
        for case in config[figure]["cases"]:
            if case not in config["fig3"]["cases"]:
                problems.append(f"{figure}.cases: {case!r} is not in fig3.cases (its Fig. 3 run is reused)")
    check_model("fig6.model", config["fig6"]["model"], config["fig3"]["models"])
    for model in config["fig7"]["models"]:
        check_model("fig7.models", model, config["fig3"]["models"])
    check_seed("fig7.representative_seed", config["fig7"]["representative_seed"])
    for key in ("alpha_range", "beta_range"):
        low, high = config["fig6"][key]
        if low >= high:
            problems.append(f"fig6.{key}: [{low}, {high}] must be increasing")
    check_case("fig8.case", config["fig8"]["case"], task="linear")
    if config["fig8"]["case"] in cases and "transform" not in cases[config["fig8"]["case"]]:
        problems.append(f"fig8.case: {config['fig8']['case']!r} has no transform (Fig. 8 needs one)")
    for model in config["fig8"]["models"]:
        check_model("fig8.models", model, training["models"])
    check_seed("fig8.representative_seed", config["fig8"]["representative_seed"])
    return problems


def relation_problems(config: dict) -> list[str]:
    """Constraints between keys that a JSON schema cannot express."""
    problems = [problem for name, block in config["cases"].items() for problem in _case_problems(name, block)]
    dataset, training, bayes = config["dataset"], config["training"], config["bayes"]
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
    if bayes["seed"] == dataset["seed"]:
        problems.append(
            f"bayes.seed: {bayes['seed']} equals dataset.seed, so the 'fresh' prompts would repeat the dataset "
            "(allowed: any other seed)"
        )
    problems += _reference_problems(config)
    if not problems:
        for case in sorted({case for case, _ in trained_runs(config)}):
            if case not in training["epochs"]:
                problems.append(f"training.epochs.{case}: missing (a figure trains case {case!r})")
    return problems


def validate_config(config: dict, schema: dict) -> None:
    """Raise ConfigError naming every bad key, or return silently if `config` is valid."""
    problems = schema_problems(config, schema)
    if not problems:
        problems = relation_problems(config)
    if problems:
        listing = "\n".join(f"  - {problem}" for problem in problems)
        raise ConfigError(f"invalid configuration ({len(problems)} problem{'s' * (len(problems) > 1)}):\n{listing}")
