"""The code a claim's verdict is computed by, as syntax: the top-level definitions of the tracked packages that
a job's script or a claim's measure reaches, with docstrings, comments and layout left out (the code part of a
claim's registered definition, icdenoise.records.registration).

Nothing is run: each tracked module (icdenoise and every package added with codedeps.track_package) is parsed
once, and its top-level statements are its *units*. A unit reaches

- the units of its own module that bind a name it uses (a ``def``, a ``class``, an assignment, an import, or a
  statement that changes the name, as ``REGISTRY["x"] = f`` changes ``REGISTRY``);
- for a name imported with ``from m import x``: unit ``x`` of module ``m`` (or module ``m.x`` where that is one);
- for ``m.x`` where ``m`` names a module: unit ``x`` of that module; a module used as a value, or ``from m import
  *``: every unit of it.

A script is reached whole (it runs top to bottom). A module whose unit is reached, or that a reached module
imports, runs when imported: its statements that bind no name (a call, a top-level ``if``/``try``/``for`` block)
and its definitions whose decorators come from a tracked module are reached too, and so are its packages'
``__init__.py``. The plumbing (codedeps.PLUMBING) and the modules the caller excludes are never followed.

A unit enters a digest as ``ast.dump`` of its syntax tree without line numbers, and with every docstring and every
statement that is only a string removed: editing a docstring, a comment or the layout changes no digest, and
editing what a reached unit computes changes it. Units enter sorted, without their module's name, and imports of
tracked modules enter not at all: moving a definition to another module changes no digest. A unit that nothing reaches, such as a new task added to
maths/tasks.py that a study's jobs never sample, leaves the study's digests alone.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import io
import textwrap
import tokenize
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from icdenoise.pipeline import codedeps


@dataclass
class _Module:
    """A parsed module: its units (top-level statements, string-only ones left out), which units bind each name,
    its imports (local name → (module, attribute or None)), the modules of its `from m import *`, the units that
    run on import whatever is used, and the tracked modules its imports load."""

    name: str
    units: list[ast.stmt]
    binds: dict[str, list[int]] = field(default_factory=dict)
    imports: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    star: list[str] = field(default_factory=list)
    on_import: list[int] = field(default_factory=list)
    imported: list[str] = field(default_factory=list)
    uses: dict[int, tuple[set[str], set[tuple[str, ...]]]] = field(default_factory=dict)  # unit → `_used`, once
    dumps: dict[int, str] = field(default_factory=dict)  # unit → its syntax as a digest reads it, once

    def used(self, index: int) -> tuple[set[str], set[tuple[str, ...]]]:
        if index not in self.uses:
            self.uses[index] = _used(self.units[index])
        return self.uses[index]

    def dump(self, index: int) -> str:
        if index not in self.dumps:
            self.dumps[index] = ast.dump(self.units[index], include_attributes=False)
        return self.dumps[index]


def _is_string(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


class _StripStrings(ast.NodeTransformer):
    """Removes every statement that is only a string (docstrings included) from every body; an emptied body
    gets a ``pass``."""

    def generic_visit(self, node):
        super().generic_visit(node)
        for name in ("body", "orelse", "finalbody"):
            body = getattr(node, name, None)
            if isinstance(body, list) and body and all(isinstance(item, ast.stmt) for item in body):
                kept = [item for item in body if not _is_string(item)]
                setattr(node, name, kept or ([ast.Pass()] if name == "body" else []))
        return node


def normalised(tree: ast.AST) -> str:
    """`tree`'s syntax without line numbers, docstrings or string-only statements (`tree` is changed)."""
    return ast.dump(_StripStrings().visit(tree), include_attributes=False)


def _bound_names(node: ast.stmt) -> set[str]:
    """The module-level names a top-level statement binds or changes (function and class bodies aside)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(alias.asname or alias.name).split(".")[0] for alias in node.names if alias.name != "*"}
    changed = _changed_name(node)
    names: set[str] = {changed} if changed else set()
    pending: list[ast.AST] = list(ast.iter_child_nodes(node))
    while pending:
        current = pending.pop()
        if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(current.name)
            continue
        if isinstance(current, ast.Lambda):
            continue
        if isinstance(current, ast.Name) and isinstance(current.ctx, (ast.Store, ast.Del)):
            names.add(current.id)
        elif isinstance(current, (ast.Attribute, ast.Subscript)) and isinstance(current.ctx, (ast.Store, ast.Del)):
            base = current.value
            while isinstance(base, (ast.Attribute, ast.Subscript)):
                base = base.value
            if isinstance(base, ast.Name):
                names.add(base.id)
        elif isinstance(current, (ast.Import, ast.ImportFrom)):
            names |= _bound_names(current)
        pending.extend(ast.iter_child_nodes(current))
    return names


def _changed_name(node: ast.stmt) -> str | None:
    """The name a statement ``name.method(…)`` changes (``CLAIMS.update({…})``), or None."""
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute):
        base = node.value.func.value
        if isinstance(base, ast.Name):
            return base.id
    return None


def _tracked(module: str) -> bool:
    return module.split(".")[0] in codedeps.TRACKED


def _is_module(name: str) -> bool:
    root = codedeps.TRACKED.get(name.split(".")[0])
    return root is not None and _module_path(name, root) is not None


@lru_cache(maxsize=None)
def _module_path(name: str, root: Path) -> Path | None:
    """The file of module `name` of the tracked package at `root`, looked up once per process."""
    return codedeps._module_file(name)


def _build(name: str, package: str | None, tree: ast.Module) -> _Module:
    """A module's record from its syntax tree; `package` resolves its relative imports."""
    found = _Module(name, [node for node in _StripStrings().visit(tree).body if not isinstance(node, ast.Pass)])
    for index, node in enumerate(found.units):
        for bound in _bound_names(node):
            found.binds.setdefault(bound, []).append(index)
        if isinstance(node, ast.Import):
            for alias in node.names:
                head = alias.name.split(".")[0]
                found.imports[alias.asname or head] = (alias.name if alias.asname else head, None)
                found.imported.append(alias.name)
        elif isinstance(node, ast.ImportFrom):
            source = node.module or ""
            if node.level:
                base = (package or "").split(".")
                source = ".".join(base[: len(base) - node.level + 1] + ([node.module] if node.module else []))
            found.imported.append(source)
            for alias in node.names:
                if alias.name == "*":
                    found.star.append(source)
                else:
                    found.imports[alias.asname or alias.name] = (source, alias.name)
                    found.imported.append(f"{source}.{alias.name}")
    defined = {name for name, indices in found.binds.items()
               if any(not isinstance(found.units[index], (ast.Import, ast.ImportFrom)) for index in indices)}
    for index, node in enumerate(found.units):
        definition = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Assign, ast.AnnAssign,
                                       ast.AugAssign, ast.Import, ast.ImportFrom)) or _changed_name(node) in defined
        if not definition or _registers(node, found):
            found.on_import.append(index)
    found.imported = [module for module in dict.fromkeys(found.imported) if _is_module(module)]
    return found


def _registers(node: ast.stmt, module: _Module) -> bool:
    """Whether a definition's decorator comes from a tracked module (it may register the definition on import)."""
    for decorator in getattr(node, "decorator_list", ()):
        base = decorator.func if isinstance(decorator, ast.Call) else decorator
        while isinstance(base, ast.Attribute):
            base = base.value
        if isinstance(base, ast.Name) and (
                (base.id in module.binds and base.id not in module.imports)
                or _tracked(module.imports.get(base.id, ("",))[0])):
            return True
    return False


@lru_cache(maxsize=None)
def _parse(module: str, path: Path, version: tuple[int, int]) -> _Module:
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    return _build(module, package, ast.parse(path.read_text()))


def _module(name: str) -> _Module | None:
    root = codedeps.TRACKED.get(name.split(".")[0])
    path = None if root is None else _module_path(name, root)
    if path is None:
        return None
    status = path.stat()
    return _parse(name, path, (status.st_mtime_ns, status.st_size))


def _used(node: ast.AST) -> tuple[set[str], set[tuple[str, ...]]]:
    """The names a statement uses bare, and its attribute chains on a name (``a.b.c`` → ("a", "b", "c"))."""
    bare, chains, based = set(), set(), set()
    for current in ast.walk(node):
        if isinstance(current, ast.Attribute) and id(current) not in based:
            parts, base = [current.attr], current.value
            while isinstance(base, ast.Attribute):
                based.add(id(base))
                parts.append(base.attr)
                base = base.value
            if isinstance(base, ast.Name):
                based.add(id(base))
                chains.add((base.id, *reversed(parts)))
    for current in ast.walk(node):
        if isinstance(current, ast.Name) and id(current) not in based:
            bare.add(current.id)
    return bare, chains


class Reach:
    """The units that some roots reach: scripts (`add_script`), modules imported by name (`add_module`) and
    functions (`add_function`); `digest` gives their code's digest. `exclude`: modules never followed."""

    def __init__(self, exclude: tuple[str, ...] = ()):
        self.exclude = tuple(exclude)
        self.units: dict[str, set[int]] = {}  # module → its reached units
        self.loaded: set[str] = set()
        self.roots: list[str] = []  # the syntax of the functions added as roots, and their closed-over values
        self._scripts: dict[str, _Module] = {}
        self._modules: dict[str, _Module | None] = {}  # module → its record, looked up once
        self._known: dict[str, bool] = {}  # dotted name → whether it is a tracked module
        self._pending: list[tuple[str, int]] = []

    def _get(self, module: str) -> _Module | None:
        if module not in self._modules:
            self._modules[module] = self._scripts.get(module) or (_module(module) if self._follows(module) else None)
        return self._modules[module]

    def _is_module(self, name: str) -> bool:
        if name not in self._known:
            self._known[name] = _is_module(name)
        return self._known[name]

    def _follows(self, module: str) -> bool:
        return module in self._scripts or (
            _tracked(module) and not codedeps.is_plumbing(module) and module not in self.exclude)

    def _load(self, name: str) -> None:
        """Module `name` (and its packages) is imported: what runs on import is reached."""
        for module in codedeps._with_parents(name):
            if module in self.loaded or not self._follows(module):
                continue
            self.loaded.add(module)
            parsed = self._get(module)
            if parsed is None:
                continue
            for index in parsed.on_import:
                self._reach(module, index)
            for imported in parsed.imported:
                self._load(imported)

    def _reach(self, module: str, index: int) -> None:
        if index not in self.units.setdefault(module, set()):
            self.units[module].add(index)
            self._pending.append((module, index))

    def _bindings(self, module: str, name: str) -> bool:
        """Reach the units of `module` that bind `name`; whether there are any."""
        parsed = self._get(module)
        if parsed is None or name not in parsed.binds:
            return False
        for index in parsed.binds[name]:
            self._reach(module, index)
        return True

    def _name(self, module: str, name: str, rest: tuple[str, ...] = ()) -> None:
        """`name` (then `.rest`…) as used in `module`: the units that bind it there, and what it imports."""
        if not self._follows(module):
            return
        if module not in self.loaded:
            self._load(module)
        parsed = self._get(module)
        if parsed is None:
            return
        if self._bindings(module, name):
            if name in parsed.imports:
                self._imported(*parsed.imports[name], rest)
            return
        if self._is_module(f"{module}.{name}"):
            self._chain(f"{module}.{name}", rest)
            return
        for source in parsed.star:
            self._name(source, name, rest)

    def _imported(self, source: str, attribute: str | None, rest: tuple[str, ...]) -> None:
        """What an import names: module `source` (`attribute` None), its submodule, or its unit `attribute`."""
        if not self._follows(source):
            return
        if attribute is None:
            self._chain(source, rest)
        elif self._is_module(f"{source}.{attribute}"):
            self._chain(f"{source}.{attribute}", rest)
        else:
            self._name(source, attribute)

    def _chain(self, module: str, rest: tuple[str, ...]) -> None:
        """``module.rest[0].rest[1]…``: the longest prefix that is a module, then its unit named next; a module
        used as a value: all of it."""
        while rest and self._is_module(f"{module}.{rest[0]}"):
            module, rest = f"{module}.{rest[0]}", rest[1:]
        if rest:
            self._name(module, rest[0])
        else:
            self._whole(module)

    def _whole(self, module: str) -> None:
        if not self._follows(module):
            return
        self._load(module)
        parsed = self._get(module)
        for index in range(len(parsed.units) if parsed else 0):
            self._reach(module, index)

    def _uses(self, module: str, node: ast.AST | None = None, index: int | None = None) -> None:
        """Follow what `node` (or unit `index`) of `module` uses."""
        bare, chains = _used(node) if index is None else self._get(module).used(index)
        for chain in chains:
            self._name(module, chain[0], chain[1:])
        for name in bare:
            self._name(module, name)

    def _drain(self) -> None:
        while self._pending:
            module, index = self._pending.pop()
            node = self._get(module).units[index]
            if not isinstance(node, (ast.Import, ast.ImportFrom)):  # an import is followed where its name is used
                self._uses(module, index=index)

    def add_script(self, path: str | Path, shown: str) -> None:
        """Every statement of a script (a rule's script, run top to bottom) and what it reaches; `shown`: its
        name in the digest, the same wherever the checkout lies."""
        self._scripts[shown] = _build(shown, None, ast.parse(Path(path).read_text()))
        self._whole(shown)
        self._drain()

    def add_module(self, module: str) -> None:
        """Every unit of `module` (a module a job imports by name at run time) and what they reach."""
        self._whole(module)
        self._drain()

    def add_function(self, function, seen: set | None = None) -> None:
        """A function (a claim's measure or rule): its own syntax, the values it closes over, and what it
        reaches from its module."""
        seen = set() if seen is None else seen
        if function in seen:
            return
        seen.add(function)
        source = textwrap.dedent(inspect.getsource(function))
        try:
            tree = ast.parse(source)
        except SyntaxError:  # a lambda inside a larger expression: its lines, without comments or layout
            tree = None
            self.roots.append(_without_comments(source))
        else:
            self.roots.append(normalised(tree))
        for cell in function.__closure__ or ():
            value = cell.cell_contents
            if inspect.isfunction(value):
                self.add_function(value, seen)
            else:
                self.roots.append(repr(value))
        module = function.__module__
        if not self._follows(module) and not codedeps.is_plumbing(module) and module not in self.exclude:
            raise ValueError(f"{function.__qualname__} is defined in {module}, outside every tracked package, so what it "
                             "calls cannot be read: define it in the study's package (codedeps.track_package)")
        if tree is not None:
            self._uses(module, tree)
        else:
            for name in sorted(_code_names(function.__code__)):
                self._name(module, name)
        self._drain()

    def fork(self) -> "Reach":
        """A copy that reaches on from here without changing this one."""
        copy = Reach(self.exclude)
        copy.units = {module: set(indices) for module, indices in self.units.items()}
        copy.loaded, copy.roots = set(self.loaded), list(self.roots)
        copy._scripts, copy._modules, copy._known = dict(self._scripts), dict(self._modules), dict(self._known)
        return copy

    def versions(self) -> dict[str, tuple[int, int] | None]:
        """Each module looked at → its file's (mtime_ns, size), None where it has none."""
        found = {}
        for module in self._modules:
            if module in self._scripts:
                continue
            path = codedeps._module_file(module)
            found[module] = None if path is None else (path.stat().st_mtime_ns, path.stat().st_size)
        return found

    def modules(self) -> list[str]:
        """The modules (and scripts) some of whose units are reached."""
        return sorted(module for module, indices in self.units.items() if indices)

    def text(self) -> str:
        """The functions' syntax, then every distinct reached unit's, sorted. No module name enters, and no
        import of a tracked module (it only routes a name; what it names enters by itself), so moving a definition
        to another module or file changes no digest, while any edit to what it computes does."""
        units = set()  # the same statement in two modules (`import numpy as np`) enters once
        for module in self.units:
            parsed = self._get(module)
            units.update(parsed.dump(index) for index in self.units[module] if not _routes_only(parsed.units[index]))
        return "\n".join([*self.roots, *sorted(units)])

    def digest(self) -> str:
        """16 hex digits of sha256 over `text`."""
        return hashlib.sha256(self.text().encode()).hexdigest()[:16]


def _routes_only(node: ast.stmt) -> bool:
    """Whether `node` is an import of tracked modules only (a relative import is of its own package)."""
    if isinstance(node, ast.Import):
        return all(_tracked(alias.name) for alias in node.names)
    if isinstance(node, ast.ImportFrom):
        return bool(node.level) or _tracked(node.module or "")
    return False


def _code_names(code) -> set[str]:
    names = set(code.co_names)
    for constant in code.co_consts:
        if inspect.iscode(constant):
            names |= _code_names(constant)
    return names


def _without_comments(source: str) -> str:
    """`source`'s tokens without comments and layout (for text that is not a whole statement)."""
    kept = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                                  tokenize.DEDENT, tokenize.ENDMARKER):
                kept.append(token.string)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return " ".join(" ".join(line.split("#", 1)[0].split()) for line in source.splitlines())
    return " ".join(kept)


WIRING_METHOD = 2  # how `rules_text` reads a rule file for the digests (icdenoise.records.registration.METHOD)
UNWIRED_CALLS = ("figure_rule",)  # rule helpers whose rules feed no claim: a figure is drawn from tables, never read
DOCUMENTED_CALLS = ("job_rule",)  # rule helpers whose second argument (or `doc=`) is the rule's docstring


def _arguments(tokens: list[tokenize.TokenInfo]) -> list[list[tokenize.TokenInfo]]:
    """The top-level arguments of the call whose tokens (name, "(", …, ")") are `tokens`, each with its comma."""
    arguments: list[list[tokenize.TokenInfo]] = [[]]
    depth = 0
    for token in tokens[2:-1]:
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth -= 1
        arguments[-1].append(token)
        if depth == 0 and token.type == tokenize.OP and token.string == ",":
            arguments.append([])
    return [argument for argument in arguments if argument]


def _wired(tokens: list[tokenize.TokenInfo], method: int) -> list[tokenize.TokenInfo]:
    """A statement's tokens as the digests read them: under method 2, none of a call to an `UNWIRED_CALLS` helper, and
    a call to a `DOCUMENTED_CALLS` helper without its docstring argument; under method 1, all of them."""
    call = (method >= 2 and len(tokens) > 2 and tokens[0].type == tokenize.NAME and tokens[1].string == "("
            and tokens[-1].string == ")")
    if call and tokens[0].string in UNWIRED_CALLS:
        return []
    if call and tokens[0].string in DOCUMENTED_CALLS:
        arguments = _arguments(tokens)
        keyword = lambda argument: len(argument) > 1 and argument[0].type == tokenize.NAME and argument[1].string == "="  # noqa: E731
        kept = [argument for index, argument in enumerate(arguments)
                if not (index == 1 and not keyword(argument)) and not (keyword(argument) and argument[0].string == "doc")]
        return [*tokens[:2], *(token for argument in kept for token in argument), tokens[-1]]
    return tokens


def rules_text(path: str | Path, method: int = WIRING_METHOD) -> str:
    """A Snakemake rule file as registration reads it: its tokens without comments, layout or the strings that
    stand alone as a statement (rule docstrings): the wiring that hands each job its tables and settings. Method 2
    (the digests' since the locks of 2026-11-29) also leaves out what hands no claim a table: each `figure_rule`
    call, and the docstring argument of each `job_rule` call (`_wired`); method 1 read every other token."""
    kept: list[str] = []
    statement: list[tokenize.TokenInfo] = []

    def close() -> bool:
        """Keep the statement read so far; False where it is left out whole (its end is then left out too)."""
        significant = [token for token in statement if token.type not in (tokenize.NL, tokenize.COMMENT)]
        wired = significant
        if significant and not all(token.type == tokenize.STRING for token in significant):
            wired = _wired(significant, method)
            kept.extend(token.string for token in wired)
        statement.clear()
        return bool(wired) or not significant

    for token in tokenize.generate_tokens(io.StringIO(Path(path).read_text()).readline):
        if token.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER):
            if close() or token.type != tokenize.NEWLINE:
                kept.append({tokenize.INDENT: "<indent>", tokenize.DEDENT: "<dedent>"}.get(token.type, ";"))
        elif token.type != tokenize.COMMENT:
            statement.append(token)
    close()
    return " ".join(kept)


SHARED_STAGE_RULES = ("datasets", "training", "evaluation")  # workflow/rules/<name>.smk: the shared stage's wiring


def study_code(study, workflow_dir: Path, trains_in_shared_stage: bool, method: int = WIRING_METHOD) -> str:
    """The code part of each of a study's claim digests: what its jobs run, as syntax (`Reach`): every rule script
    of the study, the shared stage's scripts where it trains there (`trains_in_shared_stage`, codedeps), the ledger's
    script (its bookkeeping, codedeps.BOOKKEEPING, left out: it decides no verdict), and the wiring that hands the
    jobs their tables and settings, the study's rules.smk and, where it trains there, the shared stage's rule files
    (`rules_text`, read by `method`). A claim's own measure and rules are apart (`claim_code`). `study`: an
    icdenoise.pipeline.registry.Study."""
    codedeps.track_package(study.package, study.folder)
    workflow_dir = Path(workflow_dir)
    reach = Reach(exclude=codedeps.BOOKKEEPING + (study.claims_module,))
    scripts = [(path, f"{study.package}/workflow/scripts/{path.name}")
               for path in sorted(study.workflow.joinpath("scripts").glob("*.py"))]
    shared = [*(codedeps.SHARED_STAGE_SCRIPTS if trains_in_shared_stage else ()), codedeps.LEDGER_SCRIPT]
    scripts += [(workflow_dir / "scripts" / f"{name}.py", f"workflow/scripts/{name}.py") for name in shared]
    for path, shown in scripts:
        reach.add_script(path, shown)
    wiring = [("rules.smk", rules_text(study.rules, method))]
    if trains_in_shared_stage:
        wiring += [(f"{name}.smk", rules_text(workflow_dir / "rules" / f"{name}.smk", method)) for name in SHARED_STAGE_RULES]
    text = reach.text() + "".join(f"\n{name}\0{tokens}" for name, tokens in wiring)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


_loaded: dict[str, Reach] = {}  # a module → what importing it reaches (claims of one module share it)


def _imported(module: str) -> Reach:
    """What importing `module` reaches, the ledger's bookkeeping left out: computed once, and again when a file it
    looked at has changed."""
    known = _loaded.get(module)
    if known is None or known.versions() != known.seen:
        known = Reach(exclude=codedeps.BOOKKEEPING)
        known._load(module)
        known._drain()
        known.seen = known.versions()
        _loaded[module] = known
    return known.fork()


def claim_code(claim) -> str:
    """A claim's own code as syntax: its measure and its inconclusive rules (by name), the values they close over,
    and every unit they reach (`Reach`), the ledger's bookkeeping left out. `claim`: icdenoise.records.claims.Claim."""
    reach = _imported(claim.measure.__module__)
    reach.add_function(claim.measure)
    names = []
    for name, rule in sorted(claim.rules.items()):
        names.append(name)
        reach.add_function(rule)
    return " ".join(names) + "\n" + reach.text()
