"""Which files of this package a rule's script runs, found by reading imports (no code is executed).

Snakemake re-runs a job when an input file is newer than its outputs. Rules list the package modules
their script imports, directly or through other modules of the package, as an input named ``code``:
editing a module re-runs exactly the jobs whose scripts use it, and what depends on them, and
``snakemake -n`` names the edited file as the reason. A package's ``__init__.py`` counts for every
module inside it (Python runs it on import); imports under ``if TYPE_CHECKING:`` do not count.
"""

from __future__ import annotations

import ast
import re
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


def _file_imports(path: Path, package: str | None) -> frozenset[str]:
    """`_imported_names` of a file, read once per version of it (a Snakefile asks for each many times)."""
    return _file_imports_version(str(path), path.stat().st_mtime_ns, package)


@lru_cache(maxsize=None)
def _import_statements(path: str, modified_ns: int) -> tuple[tuple[ast.stmt, ...], bool]:
    """A file's import statements outside `if TYPE_CHECKING:` blocks, and whether any statement,
    those blocks included, imports torch. Imports are statements, so only statement bodies are
    searched, not expressions: several times faster than walking every node."""
    statements: list[ast.stmt] = []
    imports_torch = False
    pending: list[tuple[ast.stmt, bool]] = [(node, False) for node in ast.parse(Path(path).read_text()).body]
    while pending:
        node, type_checking = pending.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports_torch = imports_torch or _imports_module(node, "torch")
            if not type_checking:
                statements.append(node)
            continue
        type_checking = type_checking or _is_type_checking_block(node)
        for child in _child_statements(node):
            pending.append((child, type_checking))
    return tuple(statements), imports_torch


def _child_statements(node: ast.stmt) -> list[ast.stmt]:
    """The statements directly inside a compound statement (bodies, else and finally blocks,
    exception handlers, match cases)."""
    children = []
    for field in ("body", "orelse", "finalbody", "handlers", "cases"):
        for child in getattr(node, field, ()):
            children.extend(child.body if isinstance(child, (ast.ExceptHandler, ast.match_case)) else [child])
    return children


@lru_cache(maxsize=None)
def _file_imports_version(path: str, modified_ns: int, package: str | None) -> frozenset[str]:
    return frozenset(_imported_names(_import_statements(path, modified_ns)[0], package))


def _is_type_checking_block(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def _imported_names(statements: Iterable[ast.stmt], package: str | None) -> set[str]:
    """Dotted names of the package's modules that these import statements import; `package` resolves relative imports."""
    names: set[str] = set()
    for node in statements:
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names if alias.name.split(".")[0] == PACKAGE}
        else:
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1] if package else []
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module.split(".")[0] != PACKAGE:
                continue
            names.add(module)
            names |= {f"{module}.{alias.name}" for alias in node.names if _module_file(f"{module}.{alias.name}")}
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


def _imports_module(node: ast.Import | ast.ImportFrom, module: str) -> bool:
    if isinstance(node, ast.Import):
        return any(alias.name.split(".")[0] == module for alias in node.names)
    return node.level == 0 and (node.module or "").split(".")[0] == module


def imports_torch(script: str | Path) -> bool:
    """Whether a rule script, or a package module it uses, imports torch anywhere (even inside a
    function): such a job's memory estimate includes torch's footprint (icdenoise.resources)."""
    files = [Path(script), *map(Path, script_dependencies(script))]
    return any(_import_statements(str(path), path.stat().st_mtime_ns)[1] for path in files)


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
