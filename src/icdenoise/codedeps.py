"""Which files of this package a rule's script runs, found by reading imports (no code is executed).

Snakemake re-runs a job when an input file is newer than its outputs. Rules list the package modules
their script imports, directly or through other modules of the package, as an input named ``code``:
editing a module re-runs exactly the jobs whose scripts use it, and what depends on them, and
``snakemake -n`` names the edited file as the reason. A package's ``__init__.py`` counts for every
module inside it (Python runs it on import); imports under ``if TYPE_CHECKING:`` do not count.
What a file imports is read once per version of it and, with `use_disk_cache`, kept for the next process.
"""

from __future__ import annotations

import ast
import atexit
import json
import os
import re
import tempfile
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

PACKAGE = "icdenoise"
ROOT = Path(__file__).resolve().parent


def _module_file(name: str) -> Path | None:
    """The file of package module `name` (dotted, starting with the package), or None if it is no module."""
    parts = name.split(".")[1:]
    candidate = ROOT.joinpath(*parts)
    if (candidate / "__init__.py").is_file():
        return candidate / "__init__.py"
    if candidate.with_suffix(".py").is_file():
        return candidate.with_suffix(".py")
    return None


def _with_parents(name: str) -> list[str]:
    """The module and every package above it: a.b.c → a, a.b, a.b.c."""
    parts = name.split(".")
    return [".".join(parts[: index + 1]) for index in range(len(parts))]


CACHE_FORMAT = 2  # bump when the stored records change shape or order
ImportRecord = tuple[int, str, tuple[str, ...]]  # (level, module, names): `from ..module import names`; level −1 for `import names`
_records: dict[str, dict] = {}  # path → {"version": [mtime_ns, size], "imports": [ImportRecord...], "torch": bool}
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
    """A file's import records outside `if TYPE_CHECKING:` blocks and whether it imports torch, read
    once per version of the file (a Snakefile asks for each many times)."""
    status = path.stat()
    version = [status.st_mtime_ns, status.st_size]
    record = _records.get(str(path))
    if record is None or record["version"] != version:
        imports, torch = _import_records(path.read_text())
        record = _records[str(path)] = {"version": version, "imports": imports, "torch": torch}
        _disk_cache["changed"] = True
    return record


def _import_records(source: str) -> tuple[list[ImportRecord], bool]:
    """The import statements of `source` outside `if TYPE_CHECKING:` blocks, as (level, module,
    names), and whether any statement, those blocks included, imports torch. Imports are statements,
    so only statement bodies are searched, not expressions: several times faster than walking every node."""
    records: list[ImportRecord] = []
    imports_torch = False
    pending: list[tuple[ast.stmt, bool]] = [(node, False) for node in reversed(ast.parse(source).body)]  # popped in source order
    while pending:
        node, type_checking = pending.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            record = ((-1, "", tuple(alias.name for alias in node.names)) if isinstance(node, ast.Import)
                      else (node.level, node.module or "", tuple(alias.name for alias in node.names)))
            imports_torch = imports_torch or _imports_module(record, "torch")
            if not type_checking:
                records.append(record)
            continue
        type_checking = type_checking or _is_type_checking_block(node)
        for child in reversed(_child_statements(node)):
            pending.append((child, type_checking))
    return records, imports_torch


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
            names |= {name for name in imported if name.split(".")[0] == PACKAGE}
            continue
        if level:
            base = package.split(".")[: len(package.split(".")) - level + 1] if package else []
            module = ".".join(base + ([module] if module else []))
        if module.split(".")[0] != PACKAGE:
            continue
        names.add(module)
        names |= {f"{module}.{name}" for name in imported if _module_file(f"{module}.{name}")}
    return names


@lru_cache(maxsize=None)
def _closure(name: str) -> frozenset[Path]:
    """Files of module `name` and of everything it imports from the package, parents included."""
    found: set[Path] = set()
    pending = _with_parents(name)
    seen: set[str] = set()
    while pending:
        module = pending.pop()
        if module in seen:
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


def script_dependencies(script: str | Path) -> list[str]:
    """Sorted absolute paths of the package files that a rule script imports, directly or not."""
    files: set[Path] = set()
    for name in _file_imports(Path(script), None):
        files |= _closure(name)
    return sorted(str(path) for path in files)


def imported_modules(script: str | Path) -> list[str]:
    """Every module a script imports by absolute name, package or not (`import a.b` → a.b,
    `from a.b import c` → a.b), each once."""
    modules: dict[str, None] = {}
    for level, module, names in _file_record(Path(script))["imports"]:
        if level <= 0:
            modules.update(dict.fromkeys(names if level < 0 else [module]))
    return list(modules)


def import_groups(scripts: Iterable[str | Path], exclude: Iterable[str] = ()) -> list[list[str]]:
    """The modules that `scripts` import (`imported_modules`), in groups, one per script in the order
    given, each module in the first group that imports it, and neither `exclude` nor empty groups."""
    groups, seen = [], set(exclude)
    for script in scripts:
        group = [module for module in imported_modules(script) if module not in seen]
        seen.update(group)
        if group:
            groups.append(group)
    return groups


def _imports_module(record: ImportRecord, module: str) -> bool:
    level, imported_from, names = record
    if level < 0:
        return any(name.split(".")[0] == module for name in names)
    return level == 0 and imported_from.split(".")[0] == module


def imports_torch(script: str | Path) -> bool:
    """Whether a rule script, or a package module it uses, imports torch anywhere (even inside a
    function): such a job's memory estimate includes torch's footprint (icdenoise.resources)."""
    files = [Path(script), *map(Path, script_dependencies(script))]
    return any(_file_record(path)["torch"] for path in files)


def rule_scripts(workflow_root: str | Path) -> dict[str, Path]:
    """Each rule's script, read from the rule files under `workflow_root`/workflow/rules."""
    rules = Path(workflow_root) / "workflow" / "rules"
    scripts = {}
    for path in sorted(rules.rglob("*.smk")):
        for block in re.split(r"^rule ", path.read_text(), flags=re.M)[1:]:
            found = re.search(r'^    script:\n\s+"(?:\.\./)+scripts/(.+?)"', block, flags=re.M)
            if found:
                scripts[block.split(":", 1)[0].strip()] = rules.parent / "scripts" / found.group(1)
    return scripts
