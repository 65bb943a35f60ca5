"""The study registry: which studies a run builds, read from the config's ``studies`` block.

A study is a paper or a set of experiments on the common core. It is one Python package (the built-in
ones are `icdenoise.studies.<name>`; any importable package will do) holding:

- ``study.py``: ``STUDY = Study(...)``, the facts the shared code needs without running a job (below);
- ``claims.py``: ``CLAIMS``, its claims registry (icdenoise.records.claims);
- ``workflow/rules.smk``: its rules, written with the helpers of ``workflow/rules/common.smk``;
- ``workflow/schema.yaml``: the JSON schema of its config block;
- ``workflow/scripts/`` and ``workflow/report/``: its rule scripts and report captions.

The config names it once, ``studies: {<name>: <package>}``, and holds its block under ``<name>``.
Everything shared (rule all, job sizes, GPU requests, the leaderboard, the report's checks, the tests)
is derived from the loaded studies; no shared file names a study. docs/architecture.md has the steps.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import NamedTuple

from icdenoise.pipeline.resources import SizeModel

STUDY_LOCK = "claims.lock"  # a study's own claims lock, in its folder (icdenoise.records.registration.LOCK_NAME)


class Run(NamedTuple):
    """One training job of the shared stage: every seed of one model on one case's dataset at context length L."""

    case: str
    model: str
    L: int


def no_runs(config: dict) -> set[Run]:
    """For studies that train nothing in the shared training stage."""
    return set()


@dataclass(frozen=True)
class Study:
    """What the shared code knows of a study without running one of its jobs.

    name: its config block's key and its target rule; title: the heading of its ledger.
    claims: claim id → icdenoise.records.claims.Claim (its ``claims.CLAIMS``).
    runs: config → the shared-stage training runs its figures need (trained once, shared by all).
    problems: config → problems between keys that its schema cannot express, each naming its key.
    sizes: rule → the job-size model of that rule's jobs (icdenoise.pipeline.resources): what a
        scheduler is asked for. Every rule of the study that is not local needs one.
    devices: rule → the dotted config key of its device setting (auto, cpu, cuda), for each rule whose
        jobs can use a GPU: they ask a cluster for one when it says so (icdenoise.pipeline.cluster).
    shared_settings: the top-level config blocks its claims' verdicts depend on besides its own block
        (e.g. the shared cases, models and training it reads); part of each claim's pre-registered
        definition (icdenoise.records.registration).
    results_docs: the repository's docs that quote its results (default docs/<name>.md): a commit that
        changes one of its claims' definitions may not change them (the definitions come first).
    sweeps: the sub-blocks of its config block that are sweeps (the shape of the config's ``sweeps.<name>``),
        built by the shared stages as the config's sweeps are, under the name ``<study>_<sub-block>``
        (icdenoise.pipeline.sweeps.study_sweeps): e.g. the same cases trained on several datasets.
    """

    name: str
    title: str
    claims: dict
    runs: Callable[[dict], set[Run]] = no_runs
    problems: Callable[[dict], list[str]] = lambda config: []
    sizes: Mapping[str, SizeModel] = field(default_factory=dict)
    devices: Mapping[str, str] = field(default_factory=dict)
    shared_settings: tuple[str, ...] = ()
    results_docs: tuple[str, ...] = ()
    sweeps: tuple[str, ...] = ()
    package: str = ""  # set by `load_studies`: the package the config names
    folder: Path = Path()  # set by `load_studies`: that package's directory

    @property
    def workflow(self) -> Path:
        """The folder of its rules, schema, scripts and captions."""
        return self.folder / "workflow"

    @property
    def rules(self) -> Path:
        return self.workflow / "rules.smk"

    @property
    def schema(self) -> Path:
        return self.workflow / "schema.yaml"

    @property
    def own_lock(self) -> Path:
        """Its claims lock, ``<folder>/claims.lock``, for every study, built-in or not (written by
        ``scripts/lock_claims.py``, committed on its own in the git repository that holds the study;
        icdenoise.records.study_locks)."""
        return self.folder / STUDY_LOCK

    @property
    def claims_module(self) -> str:
        return f"{self.package}.claims"

    @property
    def docs(self) -> tuple[str, ...]:
        """The docs that quote its results."""
        return self.results_docs or (f"docs/{self.name}.md",)

    def claim_settings(self, config: dict) -> dict:
        """The settings its claims' verdicts depend on: its config block without the claims, and the shared blocks
        it names, each less the entries of cases and models it does not read (`shared_view`)."""
        return {self.name: {key: value for key, value in config[self.name].items() if key != "claims"},
                **self.shared_view(config)}

    def reads(self, config: dict) -> set[str]:
        """The cases and models its claims can read (`read_names`)."""
        return read_names(config[self.name], self.runs(config), entry_names(config))

    def shared_view(self, config: dict) -> dict:
        """Its shared blocks (`shared_settings`) as its claims read them: whole, but for the entries named after a
        case or a model (``cases.<case>``, ``models.<model>``, ``training.epochs.<case>``) that it does not read
        (`reads`). So a case added for another study, or for the leaderboard alone, re-registers none of its
        claims."""
        reading = self.reading(config)
        return {block: reading(config.get(block)) for block in self.shared_settings}

    def shared_keys(self, config: dict) -> list[str]:
        """The dotted keys of `shared_view`: each shared block, or where it holds entries of cases or models the
        study does not read, the keys around them and those of the entries it reads (``cases.linear``,
        ``training.epochs.linear``, ``training.lr``). A figure's footer names the run's changes under them."""
        read, names = self.reads(config), entry_names(config)
        return [key for block in self.shared_settings for key in _read_keys(config.get(block), block, names, read)]

    def reading(self, config: dict) -> Callable:
        """A shared block → the block as its claims read it under `config` (`shared_view`); the same function
        dates a claim's settings at older commits (icdenoise.records.history)."""
        read, names = self.reads(config), entry_names(config)
        return lambda block: without_unread(block, names, read)


def entry_names(config: Mapping) -> set[str]:
    """The names of the configured cases and models."""
    return set(config.get("cases") or {}) | set(config.get("models") or {})


def read_names(block: Mapping, runs: set[Run], names: set[str]) -> set[str]:
    """The cases and models (of `names`) that a study reads: every one its config block names, as a value, a list
    item or a key, anywhere (its claims' blocks included), and those of its training runs."""
    found: set[str] = set()
    pending = [block]
    while pending:
        value = pending.pop()
        if isinstance(value, Mapping):
            found |= names & set(value)
            pending += list(value.values())
        elif isinstance(value, list | tuple):
            pending += list(value)
        elif isinstance(value, str) and value in names:
            found.add(value)
    return found | {run.case for run in runs} | {run.model for run in runs}


def _read_keys(value, key: str, names: set[str], read: set[str]) -> list[str]:
    """`key` itself, or, where the block under it holds a mapping keyed by cases or models (`without_unread`), the
    keys around that mapping and its entries of `read` alone, in sorted order (never the order of a config file's
    keys, which a run's own file may change)."""
    if not isinstance(value, Mapping) or not value:
        return [key]
    if set(value) <= names:
        return [f"{key}.{name}" for name in sorted(value) if name in read]
    inner = {name: _read_keys(value[name], f"{key}.{name}", names, read) for name in sorted(value)}
    if all(found == [f"{key}.{name}"] for name, found in inner.items()):
        return [key]
    return [found for keys in inner.values() for found in keys]


def without_unread(value, names: set[str], read: set[str]):
    """`value` less, in every mapping keyed by cases or models (all its keys in `names`), the entries not in `read`."""
    if not isinstance(value, Mapping):
        return value
    keyed = bool(value) and set(value) <= names
    return {key: without_unread(item, names, read) for key, item in value.items() if not keyed or key in read}


class RegistryError(ValueError):
    """A study named in the config cannot be loaded; the message names the key."""


def load_studies(named: Mapping[str, str]) -> dict[str, Study]:
    """The studies of the config's ``studies`` block (name → package), in its order."""
    studies = {}
    for name, package in named.items():
        key = f"studies.{name}"
        try:
            module = importlib.import_module(f"{package}.study")
        except ImportError as error:
            raise RegistryError(f"{key}: cannot import {package}.study ({error}); allowed: an importable package with a "
                                "study.py (a package outside this one must be on PYTHONPATH)") from None
        study = getattr(module, "STUDY", None)
        if not isinstance(study, Study):
            raise RegistryError(f"{key}: {package}.study defines no STUDY = Study(...)")
        if study.name != name:
            raise RegistryError(f"{key}: {package} registers the study {study.name!r} (allowed: name it {study.name!r} here)")
        folder = Path(module.__file__).resolve().parent
        study = replace(study, package=package, folder=folder)
        for path in (study.rules, study.schema):
            if not path.is_file():
                raise RegistryError(f"{key}: {package} has no {path.relative_to(folder)}")
        studies[name] = study
    return studies


def shared_and_study(shared: Mapping, studies: Mapping[str, Study], attribute: str) -> dict:
    """The shared stages' entries and every study's, by rule (`sizes` or `devices`); a rule named twice is an error."""
    merged = dict(shared)
    for study in studies.values():
        for rule, entry in getattr(study, attribute).items():
            if rule in merged:
                raise RegistryError(f"study {study.name}: rule {rule} already has {attribute} from another study")
            merged[rule] = entry
    return merged
