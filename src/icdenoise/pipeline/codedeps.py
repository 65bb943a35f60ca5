"""Which files of the science a rule's script runs, found by reading imports (no code is executed).

Snakemake re-runs a job when an input file is newer than its outputs. Rules list the modules their
script imports, directly or through other modules, as an input named ``code``: editing a module
re-runs exactly the jobs whose scripts use it, and what depends on them, and ``snakemake -n`` names
the edited file as the reason. Modules are followed in this package and in every package added with
`track_package` (a study outside it). The plumbing (`PLUMBING`: logging, the warm start, resource
estimates, cluster placement, config checks) computes no number, so it is never a code input: editing
it re-runs nothing. A package's ``__init__.py`` counts for every module inside it (Python runs it on
import); imports under ``if TYPE_CHECKING:`` do not count. What a file imports is read once per
version of it and, with `use_disk_cache`, kept for the next process.

The code a claim is registered with is read as syntax, definition by definition (icdenoise.pipeline.definitions).
"""

from __future__ import annotations

import ast
import atexit
import json
import os
import tempfile
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

PACKAGE = "icdenoise"
PLUMBING = f"{PACKAGE}.pipeline"  # its modules are never code inputs
SHARED_STAGE_SCRIPTS = ("sample_prompts", "train_ensemble", "evaluate_bayes", "evaluate_trained")  # workflow/scripts/
LEDGER_SCRIPT = "write_ledger"  # workflow/scripts/: it measures and judges every claim of a study
BOOKKEEPING = tuple(f"{PACKAGE}.records.{name}" for name in ("registration", "study_locks", "history", "ledger_text", "holm", "pages"))
# what the ledger's script imports to look claims up in their lock, to read each claim's history from git, to add the
# family-wise adjustment beside the verdicts and to write the ledger as Markdown and HTML: it decides no verdict, so it
# is a code input of the ledger job (re-rendering it) but no part of a claim's digest
TRACKED: dict[str, Path] = {PACKAGE: Path(__file__).resolve().parents[1]}  # top-level package → its folder


def track_package(package: str, folder: str | Path) -> None:
    """Follow the imports of the top-level package of `package` (dotted; a study outside this package)
    too; `folder` is the directory of `package`."""
    depth = package.count(".")
    folder = Path(folder).resolve()
    TRACKED[package.split(".")[0]] = folder.parents[depth - 1] if depth else folder
    _closure.cache_clear()


def is_plumbing(name: str) -> bool:
    return name == PLUMBING or name.startswith(f"{PLUMBING}.")


def _module_file(name: str) -> Path | None:
    """The file of module `name` (dotted) of a tracked package, or None if it is none."""
    root = TRACKED.get(name.split(".")[0])
    if root is None:
        return None
    candidate = root.joinpath(*name.split(".")[1:])
    if (candidate / "__init__.py").is_file():
        return candidate / "__init__.py"
    if candidate.with_suffix(".py").is_file():
        return candidate.with_suffix(".py")
    return None


def _with_parents(name: str) -> list[str]:
    """The module and every package above it: a.b.c → a, a.b, a.b.c."""
    parts = name.split(".")
    return [".".join(parts[: index + 1]) for index in range(len(parts))]


CACHE_FORMAT = 3  # bump when the stored records change shape or order
ImportRecord = tuple[int, str, tuple[str, ...]]  # (level, module, names): `from ..module import names`; level −1 for `import names`
_records: dict[str, dict] = {}  # path → {"version": [mtime_ns, size], "imports": [ImportRecord...]}
_disk_cache: dict = {"path": None, "changed": False}


def use_disk_cache(path: str | Path) -> None:
    """Keep what `_file_record` reads in the JSON file `path` too, so that the next process (the next
    `snakemake` call, each job of a cluster run) parses only the files edited since. Entries are
    keyed by file path, modification time and size; a missing or unreadable cache is rebuilt."""
    _disk_cache["path"] = Path(path)
    try:
        stored = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        stored = {}
    if isinstance(stored, dict) and stored.get("format") == CACHE_FORMAT:
        for file, record in stored["files"].items():
            _records.setdefault(file, record)
    atexit.register(_save_disk_cache)


def _save_disk_cache() -> None:
    """Write the cache if something new was read: to a temporary file renamed into place, so that
    processes saving at once never leave a half-written file."""
    path = _disk_cache["path"]
    if path is None or not _disk_cache["changed"]:
        return
    written = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=path.parent, suffix=".tmp", delete=False) as handle:
            written = Path(handle.name)
            json.dump({"format": CACHE_FORMAT, "files": _records}, handle)
        os.replace(written, path)
        _disk_cache["changed"] = False
    except OSError:  # a cache that cannot be written only costs the next process a parse
        if written is not None:
            written.unlink(missing_ok=True)


def _file_record(path: Path) -> dict:
    """A file's import records outside `if TYPE_CHECKING:` blocks, read once per version of the file
    (a Snakefile asks for each many times)."""
    status = path.stat()
    version = [status.st_mtime_ns, status.st_size]
    record = _records.get(str(path))
    if record is None or record["version"] != version:
        record = _records[str(path)] = {"version": version, "imports": _import_records(path.read_text())}
        _disk_cache["changed"] = True
    return record


def _import_records(source: str) -> list[ImportRecord]:
    """The import statements of `source` outside `if TYPE_CHECKING:` blocks, as (level, module, names).
    Imports are statements, so only statement bodies are searched, not expressions: several times faster
    than walking every node."""
    records: list[ImportRecord] = []
    pending: list[tuple[ast.stmt, bool]] = [(node, False) for node in reversed(ast.parse(source).body)]  # popped in source order
    while pending:
        node, type_checking = pending.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            record = ((-1, "", tuple(alias.name for alias in node.names)) if isinstance(node, ast.Import)
                      else (node.level, node.module or "", tuple(alias.name for alias in node.names)))
            if not type_checking:
                records.append(record)
            continue
        type_checking = type_checking or _is_type_checking_block(node)
        for child in reversed(_child_statements(node)):
            pending.append((child, type_checking))
    return records


def _child_statements(node: ast.stmt) -> list[ast.stmt]:
    """The statements directly inside a compound statement (bodies, else and finally blocks,
    exception handlers, match cases)."""
    children = []
    for field in ("body", "orelse", "finalbody", "handlers", "cases"):
        for child in getattr(node, field, ()):
            children.extend(child.body if isinstance(child, (ast.ExceptHandler, ast.match_case)) else [child])
    return children


def _file_imports(path: Path, package: str | None) -> frozenset[str]:
    """The package modules a file imports; `package` resolves its relative imports."""
    return frozenset(_imported_names(_file_record(path)["imports"], package))


def _is_type_checking_block(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def _imported_names(records: Iterable[ImportRecord], package: str | None) -> set[str]:
    """Dotted names of the package's modules that these import records import; `package` resolves relative imports."""
    names: set[str] = set()
    for level, module, imported in records:
        if level < 0:
            names |= {name for name in imported if name.split(".")[0] in TRACKED}
            continue
        if level:
            base = package.split(".")[: len(package.split(".")) - level + 1] if package else []
            module = ".".join(base + ([module] if module else []))
        if module.split(".")[0] not in TRACKED:
            continue
        names.add(module)
        names |= {f"{module}.{name}" for name in imported if _module_file(f"{module}.{name}")}
    return names


@lru_cache(maxsize=None)
def _closure(name: str, exclude: tuple[str, ...] = ()) -> frozenset[Path]:
    """Files of module `name` and of everything it imports from the tracked packages, parents included,
    the plumbing and the modules `exclude` names (with what only they import) left out."""
    found: set[Path] = set()
    pending = _with_parents(name)
    seen: set[str] = set()
    while pending:
        module = pending.pop()
        if module in seen or is_plumbing(module) or module in exclude:
            continue
        seen.add(module)
        path = _module_file(module)
        if path is None:
            continue
        found.add(path)
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        for imported in _file_imports(path, package):
            pending.extend(_with_parents(imported))
    return frozenset(found)


def code_dependencies(script: str | Path, modules: Iterable[str] = (), exclude: tuple[str, ...] = ()) -> list[str]:
    """Sorted absolute paths of the files that a rule script imports, directly or not, and of the
    `modules` it imports by name at run time (a figure's drawing module, say), with what they import;
    `exclude`: modules left out, with what only they import."""
    files: set[Path] = set()
    for name in [*_file_imports(Path(script), None), *modules]:
        files |= _closure(name, tuple(exclude))
    return sorted(str(path) for path in files)


def imported_modules(script: str | Path) -> list[str]:
    """Every module a script imports by absolute name, package or not (`import a.b` → a.b,
    `from a.b import c` → a.b), each once."""
    modules: dict[str, None] = {}
    for level, module, names in _file_record(Path(script))["imports"]:
        if level <= 0:
            modules.update(dict.fromkeys(names if level < 0 else [module]))
    return list(modules)


def import_groups(module_lists: Iterable[Iterable[str]], exclude: Iterable[str] = ()) -> list[list[str]]:
    """The modules of several jobs (each a list, e.g. `imported_modules` of its script), in groups, one
    per job in the order given, each module in the first group that names it, and neither `exclude` nor
    empty groups."""
    groups, seen = [], set(exclude)
    for modules in module_lists:
        group = [module for module in dict.fromkeys(modules) if module not in seen]
        seen.update(group)
        if group:
            groups.append(group)
    return groups


def trains_in_shared_stage(study, config: dict) -> bool:
    """Whether a study's verdicts read the shared stage (datasets, training, evaluation): it trains runs there, or
    its claims depend on the shared blocks (`Study.shared_settings`)."""
    return bool(study.runs(config)) or bool(study.shared_settings)
