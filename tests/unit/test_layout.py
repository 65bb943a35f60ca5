"""The package's layout, read from its imports (AST, nothing run): maths imports neither records, nor
the plumbing, nor the experiments, nor a study; records import no plumbing, experiment or study; the
experiments (sweeps, comparisons) import no plumbing and no study; the plumbing imports no torch and
names no study; tables are computed without matplotlib; a drawing imports only the shared look and
other drawings of its study and fits nothing; no module imports itself through another; a study imports
the plumbing only for its registration, its job sizes, its rule scripts' job logging and warm start and its tools'
config files; a study's registration (study.py) costs no torch."""

import ast
import functools
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "icdenoise"


def module_name(path: Path) -> str:
    return ".".join(("icdenoise", *path.relative_to(PACKAGE).with_suffix("").parts)).removesuffix(".__init__")


MODULES = {module_name(path): path for path in PACKAGE.rglob("*.py")}


@functools.cache  # each file is parsed once: the closures below walk the same modules many times over
def imports(name: str) -> frozenset[str]:
    """Every module an import statement of `name` names, anywhere in the file (in functions too)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            found.add(base)
            found |= {f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in MODULES}
    return frozenset(found)


def closure(name: str) -> set[str]:
    """`name` and every module of the package it imports, directly or not."""
    seen, pending = set(), [name]
    while pending:
        module = pending.pop()
        if module in seen or module not in MODULES:
            continue
        seen.add(module)
        pending.extend(imports(module))
    return seen


def in_layer(layer: str) -> list[str]:
    return sorted(name for name in MODULES if name.startswith(f"icdenoise.{layer}."))


def layer_of(name: str) -> str | None:
    parts = name.split(".")
    return parts[1] if parts[0] == "icdenoise" and len(parts) > 1 else None


@pytest.mark.parametrize("layer, forbidden", [
    ("maths", {"records", "pipeline", "experiments", "studies"}),
    ("records", {"pipeline", "experiments", "studies"}),
    ("pipeline", {"experiments", "studies"}),
    ("experiments", {"pipeline", "studies"}),
])
def test_each_layer_imports_only_the_layers_below_it(layer, forbidden):
    modules = in_layer(layer)
    assert len(modules) > 3
    for name in modules:
        wrong = {imported for imported in imports(name) if layer_of(imported) in forbidden}
        assert not wrong, f"{name} imports {sorted(wrong)}"


def test_no_module_imports_itself_through_another():
    """No import cycle, not even through an import inside a function (pipeline.config and pipeline.sweeps once
    shared `nearest` that way): a name two modules share lives in a module both import."""
    for name in sorted(MODULES):
        for imported in sorted(imports(name) & MODULES.keys() - {name}):
            assert name not in closure(imported), f"{name} imports {imported}, which imports {name} back"


def test_the_plumbing_imports_no_torch_even_through_the_package():
    """Snakemake's process validates the config and estimates job sizes at every start: torch would cost it seconds."""
    for name in in_layer("pipeline"):
        for module in closure(name):
            assert not {"torch"} & {imported.split(".")[0] for imported in imports(module)}, f"{name} reaches torch through {module}"


def test_the_rules_files_import_no_torch_and_no_matplotlib():
    """Snakemake's own process imports what the Snakefile and the rules files import at every call, a dry run
    too: pyplot alone would cost it a third of a second."""
    rules_files = [PACKAGE.parents[1] / "Snakefile", *(PACKAGE.parents[1] / "workflow").rglob("*.smk"), *PACKAGE.rglob("*.smk")]
    named = {match for path in rules_files for match in re.findall(r"^\s*(?:from|import) (icdenoise[\w.]*)", path.read_text(), flags=re.M)}
    assert len(named) > 10
    for name in sorted(named):
        for module in closure(name):
            heavy = {imported.split(".")[0] for imported in imports(module)} & {"torch", "matplotlib", "seaborn"}
            assert not heavy, f"a rules file imports {name}, which reaches {heavy} through {module}"


def test_a_studys_registration_imports_no_torch_and_no_matplotlib():
    registrations = [name for name in MODULES if name.startswith("icdenoise.studies.") and name.endswith(".study")]
    assert len(registrations) >= 4
    for name in registrations:
        for module in closure(name):
            heavy = {imported.split(".")[0] for imported in imports(module)} & {"torch", "matplotlib", "seaborn"}
            assert not heavy, f"{name} reaches {heavy} through {module}"


def test_tables_are_computed_without_matplotlib():
    """Only the shared look (records.figures) and the drawings (plots/) import matplotlib."""
    computing = [name for name in MODULES if ".plots" not in name and name != "icdenoise.records.figures"]
    assert len(computing) > 40
    for name in computing:
        for module in closure(name):
            if ".plots" in module or module == "icdenoise.records.figures":
                pytest.fail(f"{name} reaches the drawings through {module}")
            assert "matplotlib" not in {imported.split(".")[0] for imported in imports(module)}, f"{name} reaches matplotlib via {module}"


def test_a_drawing_imports_only_the_shared_look_and_drawings_of_its_study():
    """A figure reads tables and draws: its code input is its drawing module and what that imports."""
    drawings = [name for name in MODULES if ".plots." in name]
    assert len(drawings) > 20
    for name in drawings:
        study_plots = name.rsplit(".", 1)[0]
        for imported in imports(name):
            if imported.startswith("icdenoise"):
                assert imported == "icdenoise.records.figures" or imported.startswith(study_plots), f"{name} imports {imported}"


FITTING = {"polyfit", "lstsq", "linregress", "curve_fit", "Polynomial"}  # numpy's and scipy's least-squares fits
FITTING_PACKAGES = {"scipy", "sklearn", "statsmodels"}


def test_a_drawing_fits_nothing():
    """docs/architecture.md: a slope or rate a figure prints is a column of a fit table or of the claims ledger, so no
    drawing module (nor the shared look) calls a least-squares fit or imports a package that fits."""
    drawings = [name for name in MODULES if ".plots." in name] + ["icdenoise.records.figures"]
    for name in drawings:
        tree = ast.parse(MODULES[name].read_text())
        called = {node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                  for node in ast.walk(tree) if isinstance(node, ast.Call)}
        assert not called & FITTING, f"{name} calls {sorted(called & FITTING)}"
        assert not {imported.split(".")[0] for imported in imports(name)} & FITTING_PACKAGES, name


def test_a_study_is_imported_by_no_other_study():
    for name in in_layer("studies"):
        study = name.split(".")[2]
        others = {imported for imported in imports(name) if layer_of(imported) == "studies" and imported.split(".")[2] != study}
        assert not others, f"{name} imports {sorted(others)}"


STUDY_PLUMBING = {  # a study module's role (its file name, or its rule scripts' folder) → the plumbing it may import
    "study": {"icdenoise.pipeline.registry"},  # its registration: Study
    "config": {"icdenoise.pipeline.registry"},  # the shared-stage trainings it needs: Run
    "sizes": {"icdenoise.pipeline.resources"},  # its job sizes
    "workflow.scripts": {"icdenoise.pipeline.joblog", "icdenoise.pipeline.warmstart", "icdenoise.pipeline.checkpoints"},  # its rule scripts
    # its probes and benchmarks outside the DAG: they read the config files, and a benchmark warns where a stalled
    # SLURM would slow every snakemake call it times
    "tools": {"icdenoise.pipeline.config", "icdenoise.pipeline.cluster"},
}


def test_a_study_imports_the_plumbing_only_for_its_registration_sizes_and_rule_scripts():
    """docs/architecture.md: a study imports the plumbing for its registration (study.py, and config.py's Run), its
    job sizes (sizes.py), the job logging and warm start of its rule scripts, and the config files its tools read
    (tools/) and the SLURM check of its benchmarks; nothing else of a study does."""
    studies = in_layer("studies")
    seen = set()
    for name in studies:
        within = name.split(".", 3)[3] if name.count(".") >= 3 else ""
        role = "workflow.scripts" if within.startswith("workflow.scripts.") else within
        role = "tools" if role.split(".")[0] == "tools" else role
        plumbing = {imported for imported in imports(name) if layer_of(imported) == "pipeline" and imported in MODULES}
        assert plumbing <= STUDY_PLUMBING.get(role, set()), f"{name} imports {sorted(plumbing)}"
        seen |= {role} if plumbing else set()
    assert seen == set(STUDY_PLUMBING)
