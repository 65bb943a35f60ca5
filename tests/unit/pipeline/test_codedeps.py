"""The static map from rule scripts (and the modules they import by name) to the files of the science:
what a job imports directly or not, never the plumbing, and modules of a study outside the package."""

from pathlib import Path

from icdenoise.pipeline import codedeps
from icdenoise.pipeline.codedeps import code_dependencies, import_groups

REPO = Path(__file__).resolve().parents[3]
SCRIPTS = REPO / "workflow" / "scripts"
RULE_SCRIPTS = [*SCRIPTS.glob("*.py"), *(REPO / "src" / "icdenoise" / "studies").glob("*/workflow/scripts/*.py")]


def names(script: Path, modules=()) -> set[str]:
    return {path.split("src/icdenoise/")[1] for path in code_dependencies(script, modules)}


def test_a_script_depends_on_what_it_imports_directly_and_through_other_modules():
    bayes = names(SCRIPTS / "evaluate_bayes.py")
    assert {f"maths/{name}.py" for name in ("evaluation", "estimators", "bayes", "scoring", "cases", "tasks")} <= bayes
    assert "__init__.py" in bayes and "maths/__init__.py" in bayes
    assert not {"maths/models.py", "maths/training.py", "records/figures.py"} & bayes  # no torch model, no plot
    assert "maths/bayes.py" not in names(SCRIPTS / "sample_prompts.py") | names(SCRIPTS / "train_ensemble.py")


def test_a_figure_depends_on_its_own_drawing_module_and_the_shared_style_only():
    plot = names(SCRIPTS / "plot_figure.py", ["icdenoise.studies.onelayer.plots.fig4b"])
    assert "studies/onelayer/plots/fig4b.py" in plot and "records/figures.py" in plot
    assert not any(name.startswith("studies/onelayer/plots/fig") and not name.endswith("fig4b.py") for name in plot)
    assert not any(name.startswith("studies/") and "/plots/" not in name and not name.endswith("__init__.py") for name in plot)
    assert "studies/onelayer/plots/fig3.py" in names(SCRIPTS / "plot_figure.py", ["icdenoise.studies.onelayer.plots.fig7"])
    zipf_n = names(SCRIPTS / "plot_figure.py", ["icdenoise.studies.memory.plots.zipf_n"])
    assert "studies/memory/plots/zipf_axes.py" in zipf_n and "studies/memory/plots/zipf_d.py" not in zipf_n


def test_every_rule_script_resolves_to_existing_files_and_none_to_the_plumbing():
    """The plumbing (logging, the warm start, job sizes, cluster placement, the config) computes no number:
    editing it re-runs no job, so it is no job's code input, though every script imports some of it."""
    assert len(RULE_SCRIPTS) > 30
    for script in RULE_SCRIPTS:
        files = code_dependencies(script)
        assert files and all(Path(path).is_file() for path in files), script
        assert not any("/icdenoise/pipeline/" in path for path in files), script
        assert "icdenoise.pipeline" in script.read_text(), script  # it does import the plumbing (hand_over, start_job)


def test_imports_inside_functions_and_handlers_count_and_type_checking_ones_do_not(tmp_path):
    script = tmp_path / "rule_script.py"
    script.write_text(
        "from typing import TYPE_CHECKING\n"
        "from icdenoise.maths import seeding\n"
        "if TYPE_CHECKING:\n"
        "    from icdenoise.maths import models\n"
        "def draw():\n"
        "    for _ in range(2):\n"
        "        from icdenoise.maths.tasks import haar_orthonormal_basis\n"
        "try:\n"
        "    pass\n"
        "except ImportError:\n"
        "    import icdenoise.maths.bayes\n"
    )
    found = names(script)
    assert {"maths/seeding.py", "maths/tasks.py", "maths/bayes.py", "__init__.py"} <= found
    assert "maths/models.py" not in found


def test_a_package_outside_this_one_is_followed_once_tracked(tmp_path, monkeypatch):
    package = tmp_path / "outside" / "study"
    package.mkdir(parents=True)
    for folder in (package.parent, package):
        (folder / "__init__.py").write_text("")
    (package / "maths.py").write_text("from icdenoise.maths import bayes\n")
    script = tmp_path / "script.py"
    script.write_text("from outside.study.maths import something\n")
    monkeypatch.setattr(codedeps, "TRACKED", dict(codedeps.TRACKED))
    assert code_dependencies(script) == []
    codedeps.track_package("outside.study", package)
    found = code_dependencies(script)
    assert str(package / "maths.py") in found and any(path.endswith("icdenoise/maths/bayes.py") for path in found)
    codedeps._closure.cache_clear()


def test_import_groups_follow_the_jobs_in_order_each_module_once():
    first = ["icdenoise.pipeline.warmstart", "pandas", "icdenoise.maths.cases"]
    second = ["torch", "pandas", "icdenoise.maths.cases"]
    assert import_groups([first, second], exclude=["icdenoise.pipeline.warmstart"]) == [["pandas", "icdenoise.maths.cases"], ["torch"]]
    assert import_groups([second, second]) == [["torch", "pandas", "icdenoise.maths.cases"]]
