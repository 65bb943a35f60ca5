"""The layering: modules that compute tables never import matplotlib; plot modules only draw; the
shared core never imports a study; config validation does not pay for torch."""

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "icdenoise"
MODULES = sorted(
    ".".join(("icdenoise", *path.relative_to(PACKAGE).with_suffix("").parts)).removesuffix(".__init__")
    for path in PACKAGE.rglob("*.py")
)
COMPUTING = [name for name in MODULES if ".plots" not in name and name != "icdenoise.plotting"]


def imported_after(module: str) -> set[str]:
    code = f"import sys; import {module}; print('\\n'.join(sys.modules))"
    return set(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split())


def test_computing_modules_never_import_matplotlib():
    """Imported one after another in one process: matplotlib must never appear."""
    code = ("import importlib, sys\n"
            f"for name in {COMPUTING!r}:\n"
            "    importlib.import_module(name)\n"
            "    if 'matplotlib' in sys.modules:\n"
            "        sys.exit(name + ' imports matplotlib')\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr or result.stdout
    assert len(COMPUTING) > 20


def test_configuration_loads_without_torch():
    """Snakemake validates the config in its own process at every start: no torch import there."""
    assert "torch" not in imported_after("icdenoise.config")


def test_the_core_never_imports_a_study():
    for path in PACKAGE.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.level >= 1 and path.name != "config.py":
                assert not node.module.startswith("studies"), f"{path.name} imports {node.module}"


def test_plot_modules_import_no_computing_module_of_the_core():
    """A plot reads tables and draws: it may import the shared style and other plots, nothing that computes."""
    for path in (PACKAGE / "studies").rglob("plots/*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level >= 1:
                allowed = node.module in (None, "....plotting") or node.level == 1 or node.module == "training_summary"
                assert allowed or node.module.endswith("plotting"), f"{path.name} imports {node.module}"
