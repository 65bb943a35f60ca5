"""Sweeps declared in config: each point of a sweep is a case of its own, built by the shared stages.

A sweep (the config's ``sweeps.<name>``) names base cases, the models to train, their seeds, and a grid:
dotted keys with their values, e.g. ``case.corruption.sigma_z_sq: [0.05, 0.1, 0.2]``. A key starts with
its block: ``case.`` (a key of the base case's block, its corruption's or its transform's), ``model.``
(a key of each swept model's block), ``training.`` or ``dataset.``. The points are the grid's Cartesian
product, for every base case. Point i of sweep s on base case c is the derived case ``c.s<i>``: its
block is c's with the point's case keys set, and it carries its own dataset, training and model
settings, so that the shared stages (sample_prompts, train_ensemble, evaluate_bayes, evaluate_trained)
train and score it as they do a configured case, with no code of their own; only its training params add
`on_divergence: record` (`Point.training_params`), so that a training that diverges is a row of the
sweep's table rather than a failed job. A point whose settings are exactly its base case's, on runs the
config trains anyway, reads that case's tables instead (`shared_points`); a point whose case block is its base
case's reads that case's closed forms, which depend on nothing else (`bayes_source`). A study may declare
sub-blocks of its own config block as sweeps (`Study.sweeps`): they join the config's as ``<study>_<block>``
(`with_study_sweeps`). docs/experiments.md has the details.
"""

from __future__ import annotations

import copy
import itertools
from dataclasses import dataclass, field

from icdenoise.pipeline.registry import Run
from icdenoise.pipeline.suggestions import nearest

BLOCKS = ("case", "model", "training", "dataset")  # what a sweep key can start with


@dataclass(frozen=True)
class Point:
    """One point of a sweep on one base case: the derived case's settings."""

    sweep: str
    base: str  # the configured case it derives from
    index: int
    values: dict  # sweep key → this point's value, in the grid's key order
    case: dict  # the derived case's block
    dataset: dict
    training: dict  # with `epochs` the number of epochs of this point
    models: dict = field(default_factory=dict)  # model → its block, with the point's model keys set

    @property
    def name(self) -> str:
        return point_name(self.base, self.sweep, self.index)

    @property
    def training_params(self) -> dict:
        """The training params of its train_ensemble jobs: `training`, and `on_divergence: record`, so that a
        training that diverges writes its record (icdenoise.records.trained.divergence) and the sweep's table
        and figure show the point as diverged. A configured case's params have no such key: its training
        fails the job (TrainingDiverged)."""
        return {**self.training, "on_divergence": "record"}


def point_name(base: str, sweep: str, index: int) -> str:
    """A derived case's name: ``<base>.<sweep><index>`` (a configured case's name has no dot)."""
    return f"{base}.{sweep}{index}"


def grid_points(grid: dict) -> list[dict]:
    """The Cartesian product of a grid (key → values), the first key varying slowest."""
    keys = list(grid)
    return [dict(zip(keys, values)) for values in itertools.product(*(grid[key] for key in keys))]


def _set(block: dict, path: list[str], value) -> None:
    node = block
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value


def _keys(block: dict, prefix: str = "", leaves: bool = False) -> list[str]:
    """Every key of a nested block, dotted (`corruption`, `corruption.sigma_z_sq`), in its order; with `leaves`,
    only those that hold a value (not a block of further keys)."""
    keys = []
    for name, value in block.items():
        inner = isinstance(value, dict) and bool(value)
        if not (leaves and inner):
            keys.append(f"{prefix}{name}")
        if inner:
            keys += _keys(value, f"{prefix}{name}.", leaves)
    return keys


def _has(block, path: list[str]) -> bool:
    node = block
    for part in path:
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def configured_training(config: dict, case: str) -> dict:
    """The training block a configured case is trained with: the config's, with the case's number of epochs
    in place of the per-case map (None where the map has no entry for it)."""
    training = {key: value for key, value in config["training"].items() if key != "epochs"}
    return {**training, "epochs": config["training"]["epochs"].get(case)}


def sweep_points(config: dict) -> dict[str, Point]:
    """Derived case name → its point, for every sweep of the config, in the config's order. Assumes a
    config without `sweep_problems`."""
    points = {}
    for sweep, spec in config.get("sweeps", {}).items():
        for base in spec["cases"]:
            for index, values in enumerate(grid_points(spec["grid"])):
                case = copy.deepcopy(config["cases"][base])
                dataset = copy.deepcopy(config["dataset"])
                training = configured_training(config, base) | {"seeds": list(spec["seeds"])}
                models = {model: copy.deepcopy(config["models"][model]) for model in spec["models"]}
                for key, value in values.items():
                    block, *path = key.split(".")
                    if block == "model":
                        for model_block in models.values():
                            _set(model_block, path, value)
                    else:
                        _set({"case": case, "dataset": dataset, "training": training}[block], path, value)
                point = Point(sweep, base, index, dict(values), case, dataset, training, models)
                points[point.name] = point
    return points


def key_problems(config: dict) -> list[str]:
    """Every sweep key names an existing setting: of each base case, of each swept model, of the training or
    dataset block (training.epochs: the base case's number, set per point)."""
    def no_key(what: str, settings: dict, block: str, path: list[str], listed: list[str]) -> str:
        """`what` has no key `path`, with the nearest of its keys (dotted) and the keys `listed`."""
        match = nearest(".".join(path), _keys(settings))
        return (f"{what} has no key {'.'.join(path)}" + (f"; did you mean {block}.{match}?" if match else "")
                + f" (its keys: {', '.join(listed)})")

    problems = []
    for sweep, spec in config.get("sweeps", {}).items():
        for key in spec["grid"]:
            block, *path = key.split(".")
            where = f"sweeps.{sweep}.grid.{key}"
            if block not in BLOCKS or not path:
                problems.append(f"{where}: unknown key (allowed: {', '.join(f'{b}.<key>' for b in BLOCKS)})")
            elif block in ("case", "model"):
                blocks = config["cases"] if block == "case" else config["models"]
                problems += [f"{where}: " + no_key(f"{block} {name!r}", blocks[name], block, path, _keys(blocks[name], leaves=True))
                             for name in spec["cases" if block == "case" else "models"]
                             if name in blocks and not _has(blocks[name], path)]
            elif path == ["seeds"]:
                problems.append(f"{where}: the training seeds of a sweep are its `seeds` (allowed: any other training key)")
            elif not _has(config[block], path):
                problems.append(f"{where}: " + no_key(f"the {block} block", config[block], block, path, list(config[block])))
        for model in spec["models"]:
            if model not in config["models"]:
                problems.append(f"sweeps.{sweep}.models: {model!r} is not configured under models (configured: {', '.join(config['models'])})")
        for base in spec["cases"]:
            if base not in config["cases"]:
                problems.append(f"sweeps.{sweep}.cases: {base!r} is not configured under cases (configured: {', '.join(config['cases'])})")
            elif base not in config["training"]["epochs"] and "training.epochs" not in spec["grid"]:
                problems.append(f"training.epochs.{base}: missing (case {base!r} is trained by sweep {sweep!r})")
        if spec.get("spread") is not None and spec["spread"] not in spec["grid"]:
            problems.append(f"sweeps.{sweep}.spread: {spec['spread']!r} is not a key of its grid (allowed: {', '.join(spec['grid'])})")
        if spec.get("spread") is not None and list(spec["grid"]) == [spec["spread"]]:
            problems.append(f"sweeps.{sweep}.spread: {spec['spread']!r} is its only key, so nothing is left to draw against "
                            "(allowed: another key of a grid with two or more)")
    return problems


def study_sweeps(config: dict, studies: dict) -> dict[str, str]:
    """Sweep name → the dotted config key of its block, for every sweep a study declares in its own block
    (`Study.sweeps`): ``<study>_<block>`` → ``<study>.<block>``."""
    return {f"{name}_{block}": f"{name}.{block}" for name, study in studies.items() for block in study.sweeps
            if block in config.get(name, {})}


def with_study_sweeps(config: dict, studies: dict) -> dict:
    """The config with every study's declared sweeps among its ``sweeps`` (a shallow copy: nothing is changed)."""
    declared = study_sweeps(config, studies)
    if not declared:
        return config
    own = {name: config[key.split(".")[0]][key.split(".")[1]] for name, key in declared.items()}
    return {**config, "sweeps": {**config.get("sweeps", {}), **own}}


def sweep_key(name: str, studies: dict, config: dict) -> str:
    """The dotted config key of sweep `name`'s block: ``sweeps.<name>``, or the study block that declares it."""
    return study_sweeps(config, studies).get(name, f"sweeps.{name}")


def bayes_source(config: dict, point: Point, shared: dict[str, str]) -> str:
    """The case whose closed forms a point reads: its base case where its case block is the base case's (the
    closed forms read the case and the evaluation blocks only, never the dataset, training or models), else
    its own (or the configured case it shares all its jobs with)."""
    if identical(point.case, config["cases"][point.base]):
        return point.base
    return shared.get(point.name, point.name)


def point_config(config: dict, point: Point) -> dict:
    """A config holding only the point's blocks, its case under its base case's name: what the schema and the
    cross-key checks read, as they read a configured case."""
    return {
        "cases": {point.base: point.case},
        "models": point.models,
        "dataset": point.dataset,
        "training": {**point.training, "epochs": {point.base: point.training["epochs"]}},
        "evaluation": config["evaluation"],
    }


def with_sweep_cases(config: dict, points: dict[str, Point]) -> dict:
    """The config with every derived case under ``cases`` and its epochs under ``training.epochs``: what the
    job-size models read (their estimate uses the configured models' and dataset's sizes)."""
    cases = {**config["cases"], **{name: point.case for name, point in points.items()}}
    epochs = {**config["training"]["epochs"], **{name: point.training["epochs"] for name, point in points.items()}}
    return {**config, "cases": cases, "training": {**config["training"], "epochs": epochs}}


def identical(a, b) -> bool:
    """a and b are the same settings, types included: 1 and 1.0, or True and 1, are equal in Python but
    not to a job's params (Snakemake compares their text) nor, always, to the code that reads them."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(identical(a[key], b[key]) for key in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(identical(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def shared_points(config: dict, points: dict[str, Point], runs: set) -> dict[str, str]:
    """Derived case → its base case, for every point whose settings are exactly the base case's: the same
    case block (L included), dataset block, training block (the base case's epochs, and the sweep's seeds
    the training seeds) and model blocks, with every (base, model, L) of its models among `runs` (the
    configured runs: `Run`s of the studies and the leaderboard). Such a point's dataset, trainings, closed
    forms and scores are the base case's jobs, whose tables carry no other number: a case's name only labels
    its rows and logs. So the point reads the base case's tables rather than running the same jobs again."""
    return {
        name: point.base
        for name, point in points.items()
        if identical(point.case, config["cases"][point.base])
        and identical(point.dataset, config["dataset"])
        and identical(point.training, configured_training(config, point.base))
        and all(identical(block, config["models"][model]) for model, block in point.models.items())
        and all(Run(point.base, model, point.case["L"]) in runs for model in point.models)
    }
