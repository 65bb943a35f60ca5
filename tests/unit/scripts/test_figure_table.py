"""scripts/figure_table.py: README.md's table of figures is what the workflow's rules say, and each figure's row
lists the drawing modules whose edit re-renders it."""

import pytest
from figure_table import BEGIN, END, REPO, drawing_modules, load_workflow, replaced_block, study_targets, table


@pytest.fixture(scope="module")
def workflow():
    return load_workflow()


def test_the_readmes_figure_table_is_the_scripts_output(workflow):
    readme = (REPO / "README.md").read_text()
    assert readme.count(BEGIN) == 1 and readme.count(END) == 1
    block = readme[readme.index(BEGIN): readme.index(END) + len(END)]
    assert block == table(workflow), "README.md's figure table is stale: rerun scripts/figure_table.py"


def test_every_studys_figures_and_ledger_have_a_row(workflow):
    text = table(workflow)
    for study, target in study_targets(workflow):
        if target.endswith((".pdf", ".md")):
            assert f"| {study} | `{target}`" in text


def test_a_figures_drawing_modules_are_its_own_and_those_it_imports(workflow):
    """Each plot rule lists its own drawing module; a module several drawings import (the Zipf figures' shared
    axes) is listed by each of them, so its edit re-renders them all."""
    plots = {rule.name: rule for rule in workflow.rules if rule.name.startswith("plot_") and "drawing" in rule.params.keys()}
    for rule in plots.values():
        own = rule.params.drawing.removeprefix("icdenoise.").replace(".", "/") + ".py"
        assert own in drawing_modules(rule), rule.name
    for figure in ("zipf_n", "zipf_d", "zipf_optimum"):
        assert "studies/memory/plots/zipf_axes.py" in drawing_modules(plots[f"plot_memory_{figure}"])
    assert "studies/memory/plots/zipf_axes.py" not in drawing_modules(plots["plot_memory_planted"])


def test_write_replaces_only_the_block_between_the_markers():
    text = f"intro\n{BEGIN}\n| old row |\n{END}\nrest\n"
    assert replaced_block(text, f"{BEGIN}\n| new row |\n{END}") == f"intro\n{BEGIN}\n| new row |\n{END}\nrest\n"
    for broken in (f"intro\n{END}\n{BEGIN}\n", f"{BEGIN}\n{BEGIN}\n{END}\n", "no markers\n"):
        with pytest.raises(ValueError, match="must hold the line"):
            replaced_block(broken, f"{BEGIN}\n{END}")
