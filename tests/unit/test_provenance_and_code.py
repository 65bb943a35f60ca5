"""The provenance chain command and the static map from rule scripts to package files."""

import subprocess
import sys
from pathlib import Path

import pandas as pd

from icdenoise import artifacts
from icdenoise.codedeps import import_groups, imports_torch, script_dependencies
from icdenoise.provenance import chain

SCRIPTS = Path(__file__).resolve().parents[2] / "workflow" / "scripts"


def names(script: str) -> set[str]:
    return {path.split("src/icdenoise/")[1] for path in script_dependencies(SCRIPTS / script)}


def test_a_script_depends_on_what_it_imports_directly_and_through_other_modules():
    bayes = names("evaluate_bayes.py")
    assert {"evaluation.py", "estimators.py", "bayes.py", "scoring.py", "cases.py", "tasks.py", "__init__.py"} <= bayes
    assert not {"models.py", "training.py", "plotting.py"} & bayes  # no torch model, no plot
    assert "bayes.py" not in names("sample_prompts.py") | names("train_ensemble.py")  # datasets and training never use it


def test_a_plot_depends_on_its_own_drawing_module_and_the_shared_style_only():
    plot = names("onelayer/plot_fig4b.py")
    assert "studies/onelayer/plots/fig4b.py" in plot and "plotting.py" in plot
    assert not any(name.startswith("studies/onelayer/plots/fig") and not name.endswith("fig4b.py") for name in plot)
    assert "studies/onelayer/plots/fig3.py" in names("onelayer/plot_fig7.py")  # Fig. 7 is drawn by Fig. 3's code


def test_every_rule_script_resolves_to_existing_package_files():
    for script in SCRIPTS.rglob("*.py"):
        files = script_dependencies(script)
        assert files and all(Path(path).is_file() for path in files), script


def test_imports_inside_functions_and_handlers_count_and_type_checking_ones_do_not(tmp_path):
    script = tmp_path / "rule_script.py"
    script.write_text(
        "from typing import TYPE_CHECKING\n"
        "from icdenoise import seeding\n"
        "if TYPE_CHECKING:\n"
        "    from icdenoise import models\n"
        "    import torch\n"
        "def draw():\n"
        "    for _ in range(2):\n"
        "        from icdenoise.tasks import haar_orthonormal_basis\n"
        "try:\n"
        "    pass\n"
        "except ImportError:\n"
        "    import icdenoise.bayes\n"
    )
    found = {path.split("src/icdenoise/")[1] for path in script_dependencies(script)}
    assert {"seeding.py", "tasks.py", "bayes.py", "__init__.py"} <= found
    assert "models.py" not in found
    assert imports_torch(script)  # torch is imported somewhere, if only for type checking
    without_torch = tmp_path / "other_rule_script.py"
    without_torch.write_text("from icdenoise import seeding\n")
    assert not imports_torch(without_torch)


DEPENDENCIES_IN_A_FRESH_PROCESS = """
import ast, sys
from icdenoise import codedeps
if sys.argv[3] == "without-parser":
    ast.parse = None  # any file read again from source fails
codedeps.use_disk_cache(sys.argv[2])
print(sorted(path.split("src/icdenoise/")[1] for path in codedeps.script_dependencies(sys.argv[1])))
"""


def test_the_import_cache_on_disk_spares_the_next_process_parsing_and_notices_an_edit(tmp_path):
    script, cache = tmp_path / "rule_script.py", tmp_path / "cache" / "imports.json"
    script.write_text("from icdenoise import seeding\n")

    def dependencies(parser: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", DEPENDENCIES_IN_A_FRESH_PROCESS, str(script), str(cache), parser],
                              capture_output=True, text=True)

    first = dependencies("with-parser")
    assert first.returncode == 0 and "seeding.py" in first.stdout and cache.is_file()
    assert dependencies("without-parser").stdout == first.stdout  # everything came from the cache
    script.write_text("from icdenoise import seeding, tasks\n")  # an edit: another size, so another version
    assert dependencies("without-parser").returncode != 0
    assert "tasks.py" in dependencies("with-parser").stdout


def test_the_chain_reaches_the_dataset_parameters_and_flags_a_changed_input(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    dataset = Path("dataset.parquet")
    artifacts.write_parquet(pd.DataFrame({"x": [1.0]}), dataset,
                            {"rule": "sample_prompts", "wildcards": {"case": "gmm"}, "params": {"case": {"corruption": {"sigma_z_sq": 0.1}}}})
    table = Path("table.parquet")
    artifacts.write_parquet(pd.DataFrame({"y": [2.0]}), table, {"rule": "summarise", "wildcards": {}, "params": {"fig": {"k": 1}}},
                            inputs=[dataset])
    lines = chain(table, find="sigma_z_sq")
    assert lines[0].startswith("table.parquet: rule summarise")
    assert any("dataset.parquet: rule sample_prompts (case=gmm)" in line for line in lines)
    assert any("case.corruption.sigma_z_sq = 0.1" in line for line in lines)
    artifacts.write_parquet(pd.DataFrame({"x": [3.0]}), dataset, {"rule": "sample_prompts", "wildcards": {}, "params": {}})
    assert any("CHANGED since" in line for line in chain(table))


def test_import_groups_follow_the_scripts_in_order_each_module_once(tmp_path):
    first, second = tmp_path / "first.py", tmp_path / "second.py"
    first.write_text("from icdenoise.warmstart import hand_over\nhand_over()\nimport pandas as pd\nfrom icdenoise.cases import make_case\n")
    second.write_text("import torch\nimport pandas\nfrom icdenoise.cases import Case\n")
    assert import_groups([first, second], exclude=["icdenoise.warmstart"]) == [["pandas", "icdenoise.cases"], ["torch"]]
    assert import_groups([second, second]) == [["torch", "pandas", "icdenoise.cases"]]


def test_no_job_depends_on_the_import_scanner():
    """codedeps runs in Snakemake's process only: editing it must not re-run any job."""
    for script in SCRIPTS.rglob("*.py"):
        assert not any(path.endswith("codedeps.py") for path in script_dependencies(script)), script
