"""Configuration: loading, the JSON schema, and the checks that relate several keys.

The schema is `workflow/schemas/config.schema.yaml` (the shared blocks and ``studies``) plus, for each
study the config's ``studies`` block names, its ``workflow/schema.yaml`` (icdenoise.pipeline.registry),
inserted as the property named after the study. `validate_config` reports every problem at once, each
naming the offending key by its dotted path and saying what is allowed (for a misspelt key or value, the
nearest allowed name: "did you mean epochs?") and, given the config files merged (`ConfigFiles`), grouped
under the file that sets the key. A key outside the names allowed there (an unknown claim id) is one
problem, listing the allowed names once, without what its block would lack as such a key. In order: the
``studies`` block, then non-finite numbers, the schema's problems (integers must be integers: 4.0 is
refused), a user's model classes (icdenoise.pipeline.user_models) and tasks (icdenoise.pipeline.user_tasks),
the cross-key checks of the shared blocks, of every study and of the sweeps' keys, every sweep point's
settings (icdenoise.pipeline.sweeps), the device, and a pre-flight estimate of the largest job's memory. It
returns the loaded studies. In the workflow, `config_errors_end_the_run` shows a ConfigError as its message
alone, without a traceback.
"""

from __future__ import annotations

import copy
import math
import re
import subprocess
import sys
from collections.abc import Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import jsonschema
import yaml

from icdenoise.maths.architectures import DENOISES
from icdenoise.maths.corruptions import CORRUPTIONS
from icdenoise.pipeline.cluster import SHARED_DEVICES
from icdenoise.pipeline.registry import RegistryError, Run, Study, load_studies, shared_and_study
from icdenoise.pipeline.suggestions import nearest
from icdenoise.pipeline.sweeps import key_problems, point_config, study_sweeps, sweep_points, with_study_sweeps
from icdenoise.pipeline.user_models import class_problems, denoised_by
from icdenoise.pipeline.user_tasks import task_problems

SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's parser where PyYAML has it: the schema loads ~5× faster


class ConfigError(ValueError):
    """The configuration is invalid; the message lists every problem found."""


def load_yaml(path: str | Path) -> dict:
    """A YAML file's content; a syntax error becomes a ConfigError naming the file and the line."""
    try:
        with open(path) as handle:
            return yaml.load(handle, Loader=SAFE_LOADER)
    except FileNotFoundError:
        raise ConfigError(f"config file {path} not found") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{path}, line {mark.line + 1}, column {mark.column + 1}" if mark else str(path)
        raise ConfigError(f"{where}: not valid YAML ({getattr(error, 'problem', None) or error})") from None


def load_schema(schema_dir: str | Path, studies: dict[str, Study] | None = None) -> dict:
    """The core schema (config.schema.yaml in `schema_dir`) with each study's schema inserted as the
    property named after the study. A study's file holds ``{<study>: <schema>, $defs: {...}}`` and, for a
    study with settings of how its jobs run, ``execution: <schema>``, inserted as ``execution.<study>``;
    its $defs join the core's."""
    schema = load_yaml(Path(schema_dir) / "config.schema.yaml")
    execution = schema["properties"]["execution"]
    for name, study in (studies or {}).items():
        block = load_yaml(study.schema)
        for definition, value in block.pop("$defs", {}).items():
            if definition in schema["$defs"]:
                raise ValueError(f"{study.schema}: $defs.{definition} is already defined by another schema file")
            schema["$defs"][definition] = value
        if "execution" in block:
            execution["properties"][name] = block.pop("execution")
            execution["required"].append(name)
        if list(block) != [name]:
            raise ValueError(f"{study.schema}: holds {', '.join(block)} (allowed: the property {name}, and execution)")
        schema["properties"][name] = block[name]
        schema["required"].append(name)
    return schema


def _dotted(path) -> str:
    return ".".join(str(part) for part in path) or "<top level>"


def resolve_ref(node: dict, defs: dict) -> dict:
    """`node` merged with the definition its `$ref` names (recursively): the node's own keys win, and the
    two sets of properties join (a study's claim adds its settings to `claim_test`'s)."""
    if "$ref" not in node:
        return node
    base = resolve_ref(defs[node["$ref"].split("/")[-1]], defs)
    own = {key: value for key, value in node.items() if key != "$ref"}
    return {**base, **own, "properties": {**base.get("properties", {}), **own.get("properties", {})}}


def _allowed(error: jsonschema.ValidationError, defs: dict) -> str:
    """A short statement of what the schema allows at the failing key."""
    schema = error.schema
    if schema is False:  # the only false schemas: a claim with no_verdict has no test (config.schema.yaml, claim_test)
        return "not allowed beside no_verdict: a claim measured with no verdict has no paper_value, comparison, tolerance, tolerance_reason or inconclusive"
    if error.validator in ("additionalProperties", "unevaluatedProperties"):
        return "allowed keys: " + ", ".join(sorted(resolve_ref(schema, defs).get("properties", {})))
    if "enum" in schema:
        return f"allowed {'keys' if _is_key_error(error) else 'values'}: " + ", ".join(map(str, schema["enum"]))
    if _enum_options(error):  # an unknown name where a class of one's own is also allowed: the names, then the rest
        others = [option.get("description", "") for option in schema["anyOf"] if "enum" not in option]
        return "allowed values: " + ", ".join(map(str, _enum_options(error))) + "".join(f"; or {other}" for other in others)
    if error.validator == "anyOf":
        return "allowed: " + "; or ".join(option.get("description", "") for option in schema["anyOf"])
    if error.validator == "required":
        return "required keys: " + ", ".join(schema["required"])
    bounds = [
        f"{symbol} {schema[key]:g}" if isinstance(schema[key], float) else f"{symbol} {schema[key]}"
        for key, symbol in (("minimum", "≥"), ("exclusiveMinimum", ">"), ("maximum", "≤"), ("exclusiveMaximum", "<"))
        if key in schema
    ]
    kind = schema.get("type")
    text = " and ".join(bounds)
    return f"allowed: {kind} {text}".rstrip() if kind or text else ""


def _strict_integer(checker, instance) -> bool:
    """An integer is an int, not a float with no fractional part (4.0) and not a bool."""
    return isinstance(instance, int) and not isinstance(instance, bool)


VALIDATOR = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("integer", _strict_integer),
)


def nonfinite_problems(node, path: tuple = ()) -> list[str]:
    """Every NaN or ±inf in the config, by key: no job ever sees one."""
    if isinstance(node, dict):
        return [problem for key, value in node.items() for problem in nonfinite_problems(value, (*path, key))]
    if isinstance(node, list):
        return [problem for index, value in enumerate(node) for problem in nonfinite_problems(value, (*path, index))]
    if isinstance(node, float) and not math.isfinite(node):
        return [f"{_dotted(path)}: {node} is not a finite number (allowed: a finite number)"]
    return []


def _schema_keys(schema: dict, defs: dict, prefix: str = "", seen: frozenset = frozenset()) -> list[str]:
    """The keys an object's schema allows, with those of the objects inside it, dotted (`corruption.sigma_z_sq`)."""
    keys = []
    for name, node in resolve_ref(schema, defs).get("properties", {}).items():
        keys.append(f"{prefix}{name}")
        reference = node.get("$ref") if isinstance(node, dict) else None
        if isinstance(node, dict) and reference not in seen:
            keys += _schema_keys(node, defs, f"{prefix}{name}.", seen | {reference})
    return keys


def _enum_options(error: jsonschema.ValidationError) -> list[str]:
    """The names an anyOf lists in its options (a registered name, or a class of one's own as module.path:ClassName),
    where its string value names no class (no ':'), and so is an unknown name; [] otherwise."""
    if error.validator != "anyOf" or not isinstance(error.schema, dict):
        return []
    if not isinstance(error.instance, str) or ":" in error.instance:
        return []
    return [name for option in error.schema["anyOf"] for name in option.get("enum", [])]


def _unknown_names(error: jsonschema.ValidationError, defs: dict) -> tuple[list[str], list[str]]:
    """The names an error refuses and the names allowed in their place: the unknown keys of an object
    (additionalProperties, unevaluatedProperties; in their place also the keys of the objects inside it,
    dotted), a key outside its enum (propertyNames: a study's claim ids) or a value outside its enum (or outside
    the names of an anyOf that also allows a class of one's own, `_enum_options`); ([], []) for any other error."""
    if error.schema is False or not isinstance(error.schema, dict):
        return [], []
    if error.validator in ("additionalProperties", "unevaluatedProperties") and isinstance(error.instance, dict):
        allowed = list(resolve_ref(error.schema, defs).get("properties", {}))
        return [str(key) for key in error.instance if key not in allowed], _schema_keys(error.schema, defs)
    if error.validator == "enum" and isinstance(error.instance, str):
        return [error.instance], list(error.schema["enum"])
    if _enum_options(error):
        return [error.instance], _enum_options(error)
    return [], []


def _suggestion(unknown: list[str], allowed: list[str]) -> str:
    """'did you mean epochs?' for each unknown name close to an allowed one ('' when none is)."""
    close = {name: nearest(name, allowed) for name in unknown}
    close = {name: match for name, match in close.items() if match is not None}
    if not close:
        return ""
    if len(unknown) == 1:
        return f"did you mean {next(iter(close.values()))}?"
    return "did you mean " + " and ".join(f"{match} (for {name})" for name, match in close.items()) + "?"


def _is_key_error(error: jsonschema.ValidationError) -> bool:
    """The error is about a key's name (propertyNames), not its value: its instance is the key."""
    return "propertyNames" in error.schema_path


def _message(error: jsonschema.ValidationError) -> str:
    """What is wrong, in a few words: jsonschema's own message, except for a name outside its enum, whose
    message would list the allowed names that `_allowed` states after it."""
    if error.validator == "enum" or _enum_options(error):
        return f"{error.instance!r} is not an allowed {'key' if _is_key_error(error) else 'value'}"
    return error.message


def _refused_keys(errors: list[jsonschema.ValidationError]) -> set[tuple]:
    """The paths of the keys that `errors` refuse as outside their enum (a study's claim ids): the schema
    still checks such a key's value, against what any key there holds. (An object's unknown keys, refused by
    additionalProperties or unevaluatedProperties, have their values checked by nothing; a key refused by its
    form, a propertyNames pattern, has its value checked as the rightly named key's would be.)"""
    return {(*error.absolute_path, error.instance) for error in errors if _is_key_error(error) and error.validator == "enum"}


def _under(path: tuple, keys: set[tuple]) -> bool:
    """`path` is one of `keys` or lies inside one."""
    return any(path[:len(key)] == key for key in keys)


def schema_findings(config: dict, schema: dict) -> list[tuple[str, tuple]]:
    """Each schema problem of `config` with the path of the key it is about: the unknown key itself for an
    object's unknown key or a key outside its enum (so that its config file can be named). A key refused by
    its name is its only problem: what the schema would say of its value (the required keys of a claim that
    does not exist) is left out."""
    validator, defs = VALIDATOR(schema), schema.get("$defs", {})
    errors = sorted(validator.iter_errors(config), key=lambda e: list(map(str, e.absolute_path)))
    refused = _refused_keys(errors)
    findings = []
    for error in errors:
        path = tuple(error.absolute_path)
        if _under(path, refused):
            continue
        unknown, allowed_names = _unknown_names(error, defs)
        allowed = _allowed(error, defs)
        suggestion = _suggestion(unknown, allowed_names)
        text = f"{_dotted(path)}: {_message(error)}" + (f"; {suggestion}" if suggestion else "")
        text += f" ({allowed})" if allowed else ""
        if error.validator in ("additionalProperties", "unevaluatedProperties") and unknown:
            path = (*path, unknown[0])
        elif _is_key_error(error):
            path = (*path, error.instance)
        findings.append((text, path))
    return findings


def schema_problems(config: dict, schema: dict) -> list[str]:
    """Every problem the schema finds in `config`, each naming its key by its dotted path and saying what is
    allowed there (and the nearest allowed name, for a misspelt key or value)."""
    return [text for text, _ in schema_findings(config, schema)]


def all_runs(config: dict, studies: dict[str, Study]) -> set[Run]:
    """Every training run: those the studies' figures need and the leaderboard's extra runs."""
    runs = {run for study in studies.values() for run in study.runs(config)}
    extra = config["leaderboard"]["extra_runs"]
    return runs | {Run(case, model, config["cases"][case]["L"]) for case, models in extra.items() for model in models if case in config["cases"]}


def _case_problems(name: str, block: dict) -> list[str]:
    key, task = f"cases.{name}", block["task"]
    if task == "linear" and block["d"] > block["n"]:
        return [f"{key}.d: {block['d']} exceeds {key}.n = {block['n']} (allowed: 1 ≤ d ≤ n)"]
    if task == "sphere" and block["d"] + 1 > block["n"]:
        return [f"{key}.d: {block['d']} needs a {block['d'] + 1}-dim subspace but {key}.n = {block['n']} (allowed: 1 ≤ d ≤ n − 1)"]
    if task == "mixture" and any(len(centre) != block["n"] for centre in block["centres"]):
        return [f"{key}.centres: every centre needs {key}.n = {block['n']} coordinates"]
    if task == "gmm" and block["K"] > block["L"]:
        return [f"{key}.K: {block['K']} exceeds {key}.L = {block['L']} (allowed: K ≤ L)"]
    corruption = block["corruption"]["kind"]
    if (task == "low_rank_mixture") != (corruption == "off_subspace"):
        return [f"{key}.corruption.kind: {corruption!r} with task {task!r} (allowed: off_subspace exactly with task low_rank_mixture)"]
    if task == "low_rank_mixture" and block["K"] * block["p"] > block["n"]:
        return [f"{key}.p: K·p = {block['K'] * block['p']} orthogonal directions exceed {key}.n = {block['n']} (allowed: K·p ≤ n)"]
    if task == "low_rank_mixture" and block["K"] > block["L"]:
        return [f"{key}.K: {block['K']} exceeds {key}.L = {block['L']} (allowed: K ≤ L, a token per subspace)"]
    return []


def _cannot_denoise(model: str, architecture: str, corruption: str, config: dict, where: str = "") -> list[str]:
    """The problem of a model whose architecture does not denoise `corruption` (none for a user's class that
    failed its own check: that is reported once, by its key)."""
    denoised = denoised_by(architecture, config)
    if denoised is None or corruption in denoised:
        return []
    return [f"models.{model}: a {architecture} model cannot denoise {where}{corruption} corruption "
            f"(allowed: {', '.join(sorted(denoised))})"]


def _run_problems(config: dict, studies: dict[str, Study]) -> list[str]:
    """Every run names a configured case and model, the model denoises the case's corruption, and
    the case has its number of epochs."""
    cases, models, epochs = config["cases"], config["models"], config["training"]["epochs"]
    problems = []
    for case, run_models in config["leaderboard"]["extra_runs"].items():
        if case not in cases:
            problems.append(f"leaderboard.extra_runs.{case}: not configured under cases (configured: {', '.join(cases)})")
        problems += [f"leaderboard.extra_runs.{case}: {model!r} is not configured under models" for model in run_models if model not in models]
    for case, model, _ in sorted(all_runs(config, studies)):
        if case not in cases or model not in models:
            continue
        corruption = cases[case]["corruption"]["kind"]
        problems += _cannot_denoise(model, models[model]["architecture"], corruption, config, f"case {case!r} with ")
        if case not in epochs:
            problems.append(f"training.epochs.{case}: missing (case {case!r} is trained)")
    return sorted(set(problems), key=problems.index)


def _shared_block_problems(config: dict) -> list[str]:
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
    return problems


def relation_problems(config: dict, studies: dict[str, Study]) -> list[str]:
    """Constraints between keys that a JSON schema cannot express. Each group of checks runs on its own:
    a group that cannot run because its keys are malformed is skipped (the schema has named them)."""
    checks = [_shared_block_problems, *(study.problems for study in studies.values()), lambda config: _run_problems(config, studies),
              key_problems]
    problems = []
    for check in checks:
        try:
            problems += check(config)
        except (KeyError, TypeError, AttributeError, IndexError, ValueError):
            continue
    return problems


def _sweep_name_problems(config: dict, studies: dict[str, Study]) -> list[str]:
    """A sweep of the config may not take the name of a study's own sweep."""
    return [f"sweeps.{name}: the name of the sweep that {key} declares (allowed: any other name)"
            for name, key in study_sweeps(config, studies).items() if name in config.get("sweeps", {})]


def _named_as_configured(problems: list[str], config: dict, studies: dict[str, Study]) -> list[str]:
    """Problems of a study's own sweep named by its key in the study's block (``onelayer.datasets``), not by the
    name it is built under (``sweeps.onelayer_datasets``)."""
    for name, key in study_sweeps(config, studies).items():
        problems = [re.sub(rf"^sweeps\.{re.escape(name)}\b", key, problem) for problem in problems]
    return problems


POINT_BLOCKS = ("cases", "models", "dataset", "training", "evaluation")  # what `point_config` holds


def sweep_problems(config: dict, schema: dict) -> list[str]:
    """Every point's settings are valid as a configured case's would be (the schema's rules, the cross-key checks
    and, for a task of one's own, its check), each problem named by its sweep and point; for a config whose keys are valid (`key_problems`)."""
    problems = []
    part = {**schema, "required": list(POINT_BLOCKS), "properties": {key: schema["properties"][key] for key in POINT_BLOCKS}}
    points = sweep_points(config)
    tasks = task_problems({"cases": {name: point.case for name, point in points.items()}})  # tasks of one's own, at once
    for name, point in points.items():
        view = point_config(config, point)
        found = schema_problems(view, part) or _shared_block_problems(view)
        found += [problem for problem in tasks if problem.startswith((f"cases.{name}.", f"cases.{name}:"))]
        for model, block in point.models.items():
            found += _cannot_denoise(model, block["architecture"], point.case["corruption"]["kind"], config)
        at = ", ".join(f"{key} = {value}" for key, value in point.values.items())
        problems += [f"sweeps.{point.sweep} at {at} (case {name}): {problem}" for problem in found]
    return problems


def device_problems(config: dict, studies: dict[str, Study], local_execution: bool) -> list[str]:
    """A device key set to `cuda` (execution.training.device, or a study's, `Study.devices`) needs a GPU that torch
    sees, when jobs run on this machine (a cluster's login node has none, and its GPU jobs ask the
    scheduler for one). Only then is torch asked, in a child interpreter: this process never imports it."""
    keys = [key for key in device_keys(studies).values() if setting(config, key) == "cuda"]
    if not keys or not local_execution:
        return []
    answer = subprocess.run([sys.executable, "-c", "import torch; print(torch.cuda.is_available())"], capture_output=True,
                            text=True)
    if answer.stdout.strip() == "True":
        return []
    return [f"{key}: cuda, but torch sees no CUDA GPU on this machine (allowed here: auto or cpu)" for key in dict.fromkeys(keys)]


def device_keys(studies: dict[str, Study]) -> dict[str, str]:
    """Rule → the config key of its device setting, for every rule whose jobs can use a GPU."""
    return shared_and_study(SHARED_DEVICES, studies, "devices")


def setting(config: dict, key: str):
    """The value at a dotted key of the config."""
    node = config
    for part in key.split("."):
        node = node[part]
    return node


def memory_problems(config: dict, studies: dict[str, Study], available_mb: float) -> list[str]:
    """The largest job's estimated peak memory must fit in `available_mb`."""
    from icdenoise.pipeline.resources import largest_job

    job = largest_job(config, all_runs(config, studies))
    if job.megabytes <= available_mb:
        return []
    return [f"{job.job}: needs an estimated {job.megabytes:,.0f} MB of memory, more than this machine's {available_mb:,.0f} MB "
            "(allowed: fewer prompts, a shorter L or a smaller n, or execution.evaluation.chunk_size for the evaluations)"]


def _shown(path: str | Path, workdir: Path) -> str:
    """A config file's path as a message names it: relative to `workdir` when it lies inside."""
    path, workdir = Path(path), workdir.resolve()
    return str(path.resolve().relative_to(workdir) if path.resolve().is_relative_to(workdir) else path)


def _sets(layer, path: Sequence) -> bool:
    """`layer` (one config file's content) sets the key at `path`: it holds every step of it, or a value
    that is not a mapping (a list, or a scalar) on the way, which the merge takes whole."""
    node = layer
    for part in path:
        if not isinstance(node, Mapping):
            return True
        if part not in node:
            return False
        node = node[part]
    return True


@dataclass(frozen=True)
class ConfigFiles:
    """Where a merged config came from: its files in merge order (config/config.yaml first, then each
    ``--configfile``) and the command line's ``--config`` values merged last. A problem's key is named by
    the last of them that sets it; they are read only when there is a problem to name."""

    files: Sequence[str | Path]
    overrides: Mapping = field(default_factory=dict)
    workdir: Path = field(default_factory=Path.cwd)

    def layers(self) -> dict[str, Mapping]:
        """Name (the file's path, or --config) → what it sets, in merge order."""
        layers = {_shown(path, self.workdir): load_yaml(path) or {} for path in self.files}
        return {**layers, **({"--config": dict(self.overrides)} if self.overrides else {})}

    @staticmethod
    def origin(path: Sequence, layers: dict[str, Mapping]) -> str | None:
        """The source that sets the key at `path`: of the longest part of the path that a source sets, the
        last source that sets it; None when none sets even its first key."""
        for length in range(len(path), 0, -1):
            setting = [name for name, layer in layers.items() if _sets(layer, path[:length])]
            if setting:
                return setting[-1]
        return None


# The dotted key a problem starts with: "cases.linear.d: …", "sweeps.s at …".
KEY_AT_START = re.compile(r"[A-Za-z0-9_.\-]+")
# A dotted key a problem names after its start ("… exceeds cases.linear.n = 2"); not a module's or a file's name
MENTIONED_KEY = re.compile(r"(?<![\w./])[A-Za-z_][\w\-]*(?:\.[\w\-]+)+")


def _source(problem: str, path: tuple, layers: dict[str, Mapping]) -> str | None:
    """The source a problem is listed under: the one that sets its key (`ConfigFiles.origin`), or a source merged
    after it that sets another key the problem names (a problem between keys is listed where the last of them was
    set: "cases.sphere.d: … but cases.sphere.n = 1" under the file that set n)."""
    order = list(layers)
    found = [ConfigFiles.origin(path, layers)]
    for key in MENTIONED_KEY.findall(problem.split(":", 1)[1] if ":" in problem else ""):
        setting = [name for name, layer in layers.items() if _sets(layer, tuple(key.split(".")))]
        found += setting[-1:]
    known = [name for name in found if name is not None]
    return max(known, key=order.index) if known else None


def _invalid(problems: list[str], sources: ConfigFiles | None = None, paths: dict | None = None) -> ConfigError:
    """The ConfigError listing every problem; with `sources`, grouped under the config file (or --config)
    that sets each problem's key (its path in `paths`, else the dotted key it starts with): the source merged
    last first (the file just given, usually the one being edited), config/config.yaml last, then the
    problems of keys that no source sets (a missing key, a job's memory)."""
    header = f"invalid configuration ({len(problems)} problem{'s' * (len(problems) > 1)}):"
    if sources is None:
        return ConfigError("\n".join([header, *(f"  - {problem}" for problem in problems)]))
    layers, paths = sources.layers(), paths or {}
    groups: dict[str | None, list[str]] = {name: [] for name in [*reversed(layers), None]}
    for problem in problems:
        start = KEY_AT_START.match(problem)
        path = paths.get(problem) or (tuple(start.group().split(".")) if start else ())
        groups[_source(problem, path, layers)].append(problem)
    lines = [header]
    for name, listed in groups.items():
        if listed:
            lines.append(f"  in {name}:" if name is not None else "  in the merged config (set by no file):")
            lines += [f"    - {problem}" for problem in listed]
    return ConfigError("\n".join(lines))


def registered_studies(config: dict, schema: dict, sources: ConfigFiles | None = None) -> dict[str, Study]:
    """The studies the config names, loaded; a malformed ``studies`` block (checked against its part of
    the core `schema`) or a study that cannot be loaded is a ConfigError naming its key (and with `sources`,
    the config file that sets it)."""
    part = {"type": "object", "required": ["studies"], "properties": {"studies": schema["properties"]["studies"]}}
    findings = schema_findings({key: value for key, value in config.items() if key == "studies"}, part)
    if not findings:
        try:
            return load_studies(config["studies"])
        except RegistryError as error:
            findings = [(str(error), ())]
    raise _invalid([text for text, _ in findings], sources, {text: path for text, path in findings if path})


def validate_config(config: dict, schema_dir: str | Path, local_execution: bool = False,
                    available_mb: float | None = None, sources: ConfigFiles | None = None) -> dict[str, Study]:
    """Raise ConfigError naming every bad key, or return the config's studies if `config` is valid.

    schema_dir: the folder of config.schema.yaml; local_execution: jobs run on this machine (check the
    device); available_mb: this machine's memory (check the largest job against it); sources: the config
    files merged into `config`, to name the file that sets each bad key."""
    studies = registered_studies(config, load_schema(schema_dir), sources)
    schema = load_schema(schema_dir, studies)
    findings = schema_findings(config, schema)
    paths = {text: path for text, path in findings}
    problems = nonfinite_problems(config) + [text for text, _ in findings]
    if not problems:
        problems += class_problems(config) + task_problems(config)
    swept = with_study_sweeps(config, studies)  # a study's own sweeps are checked as the config's are
    problems += _sweep_name_problems(config, studies) + _named_as_configured(relation_problems(swept, studies), config, studies)
    if not problems:
        problems += _named_as_configured(sweep_problems(swept, schema), config, studies)
    if not problems:
        problems += device_problems(config, studies, local_execution)
        if available_mb is not None:
            problems += memory_problems(config, studies, available_mb)
    problems = list(dict.fromkeys(problems))
    if problems:
        raise _invalid(problems, sources, paths)
    return studies


@contextmanager
def config_errors_end_the_run():
    """In the workflow's files: a ConfigError raised inside ends Snakemake with its message alone and exit
    status 1. Raised through, Snakemake would follow it with the lines of the traceback through the
    workflow's files and this package."""
    try:
        yield
    except ConfigError as error:
        from snakemake.logging import logger

        logger.error(str(error))
        raise SystemExit(1) from None


def merge_base_config(workflow, path: str, base: dict) -> None:
    """What Snakemake's `configfile: <path>` directive does, from the file's settings already read (`base`, by
    `load_yaml`): the file joins the workflow's config files and its settings the config, and the command line's
    ``--configfile`` and ``--config`` settings are merged over them again. The directive reads the file once more,
    with PyYAML's pure-Python parser (0.13 s of each of the workflow's parses for config/config.yaml); where
    Snakemake treats the file apart (``--replace-workflow-config``, or the workflow used as another's module), the
    directive's own method runs. `workflow`: the Snakefile's ``workflow``."""
    settings = workflow.config_settings
    if settings.replace_workflow_config or workflow.modifier.skip_configfile:
        workflow.configfile(path)
        return
    from snakemake.utils import update_config

    workflow.configfiles.append(path)
    update_config(workflow.config, copy.deepcopy(base))
    if settings.overwrite_config:
        update_config(workflow.config, settings.overwrite_config)


def config_sources(configfiles, config: dict, workdir: Path) -> dict:
    """The run's name, the config files it merged, with the digests of their settings, and the digest of the
    merged config's: what a ledger and the report say they were built from. Each digest leaves out the
    `execution` block (icdenoise.records.artifacts.config_digest), and a file that sets nothing else is not
    listed: editing or adding how jobs run re-runs nothing."""
    from icdenoise.records.artifacts import config_digest

    files, nothing = [], config_digest({})
    for path in map(Path, configfiles):
        digest = config_digest(load_yaml(path) or {})
        if digest != nothing:
            files.append({"file": _shown(path, workdir), "sha256": digest})
    return {"run": config["run"]["name"], "files": files, "merged_sha256": config_digest(config)}


def built_config_problems(tables, merged_sha256: str) -> list[str]:
    """For `snakemake --report`: every given table must have been written under the config given now."""
    from icdenoise.records.artifacts import read_metadata

    problems = []
    for table in map(Path, tables):
        if table.is_file():
            built = read_metadata(table).get("config_sha256")
            if built != merged_sha256:
                sources = read_metadata(table)["params"]["params"].get("config_sources", {})
                names = " + ".join(entry["file"] for entry in sources.get("files", [])) or "another config"
                run = sources.get("run", "unnamed")
                problems.append(f"{table}: built by run {run!r} from {names} (merged config {str(built)[:12]}), not from the "
                                f"config given now ({merged_sha256[:12]}); give the same --configfile to --report, or rebuild")
    return problems


def registry_names(studies: dict[str, Study]) -> dict[str, set[str]]:
    """The names the schema's enums must list: tasks, corruptions, model architectures and claims."""
    from icdenoise.maths.tasks import TASKS

    return {
        "task": set(TASKS),
        "corruption": set(CORRUPTIONS),
        "architecture": set(DENOISES),
        **{f"{name}.claims": set(study.claims) for name, study in studies.items()},
    }
