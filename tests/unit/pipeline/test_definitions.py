"""The code a claim is registered with, read as syntax (icdenoise.pipeline.definitions): docstrings, comments and
layout change no digest, any edit to what a reached definition computes does, and a definition that nothing
reaches leaves the digest alone. Tested on a small package written here and on the project's own studies."""

import dataclasses
import importlib
import shutil
import sys
import textwrap

import pytest

from icdenoise.pipeline import codedeps
from icdenoise.pipeline.definitions import Reach, claim_code, rules_text, study_code
from icdenoise.records.claims import Claim

MATHS = '''
"""A module docstring."""
import numpy as np

SCALE = 2.0
REGISTRY = {}


def register(name):
    def put(function):
        REGISTRY[name] = function
        return function
    return put


def double(x):
    """Twice x."""
    return SCALE * x  # the factor


def unused(x):
    return x - 1


class Task:
    """A task."""

    def sample(self, n):
        return np.zeros(n) + double(n)
'''

SCRIPT = '''
from toypkg import maths
from toypkg.maths import Task

print(maths.double(3), Task().sample(2))
'''


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """A tracked package `toypkg` (maths.py, other.py) and a script that uses it; yields a function giving the
    script's code digest."""
    package = tmp_path / "toypkg"
    package.mkdir()
    (package / "__init__.py").write_text('"""The toy package."""\n')
    (package / "maths.py").write_text(MATHS)
    (package / "other.py").write_text("def other():\n    return 1\n")
    (tmp_path / "script.py").write_text(SCRIPT)
    monkeypatch.setitem(codedeps.TRACKED, "toypkg", package)
    monkeypatch.syspath_prepend(str(tmp_path))

    def digest():
        reach = Reach()
        reach.add_script(tmp_path / "script.py", "script.py")
        return reach.digest()

    yield package, digest
    for name in [name for name in sys.modules if name.startswith("toypkg")]:
        del sys.modules[name]


def _edit(path, old, new):
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_docstrings_comments_and_layout_change_no_digest(toy):
    package, digest = toy
    base = digest()
    _edit(package / "maths.py", '"""Twice x."""', '"""Two times x, eq. (3)."""')
    _edit(package / "maths.py", "# the factor", "# the factor of eq. (3)")
    _edit(package / "maths.py", '"""A module docstring."""', '"""Another docstring."""\n\n\n')
    _edit(package / "maths.py", "return SCALE * x", "return (SCALE\n            * x)")
    _edit(package / "__init__.py", "The toy package.", "The toy package, renamed in words.")
    assert digest() == base


def test_a_computation_a_script_reaches_changes_the_digest(toy):
    package, digest = toy
    base = digest()
    _edit(package / "maths.py", "SCALE = 2.0", "SCALE = 2.5")  # a constant reached through double
    assert digest() != base
    _edit(package / "maths.py", "SCALE = 2.5", "SCALE = 2.0")
    assert digest() == base
    _edit(package / "maths.py", "np.zeros(n) + double(n)", "np.ones(n) + double(n)")  # a method of a reached class
    assert digest() != base


def test_a_definition_nothing_reaches_leaves_the_digest_alone(toy):
    package, digest = toy
    base = digest()
    _edit(package / "maths.py", "return x - 1", "return x - 2")
    (package / "maths.py").write_text((package / "maths.py").read_text() + "\n\nclass Ring(Task):\n    pass\n")
    (package / "other.py").write_text("def other():\n    return 2\n")
    assert digest() == base


def test_moving_a_definition_to_another_module_changes_no_digest(toy):
    package, digest = toy
    base = digest()
    _edit(package / "maths.py", 'SCALE = 2.0\n', "from toypkg.other import SCALE, double\n")
    _edit(package / "maths.py", 'def double(x):\n    """Twice x."""\n    return SCALE * x  # the factor\n', "")
    (package / "other.py").write_text("def other():\n    return 1\n\n\nSCALE = 2.0\n\n\ndef double(x):\n"
                                      "    return SCALE * x\n")
    assert digest() == base
    _edit(package / "other.py", "return SCALE * x", "return SCALE + x")  # what the moved definition computes
    assert digest() != base


def test_what_runs_on_import_is_reached_whether_used_or_not(toy):
    package, digest = toy
    base = digest()
    (package / "maths.py").write_text((package / "maths.py").read_text() + "\n\n@register('triple')\ndef triple(x):\n"
                                      "    return 3 * x\n")
    with_registered = digest()
    assert with_registered != base  # a decorator of the package's own may fill a registry on import
    _edit(package / "maths.py", "return 3 * x", "return 4 * x")
    assert digest() != with_registered


def test_a_module_used_as_a_value_is_reached_whole(toy, tmp_path):
    package, _ = toy
    (tmp_path / "whole.py").write_text("from toypkg import maths\nvalues = vars(maths)\n")

    def digest():
        reach = Reach()
        reach.add_script(tmp_path / "whole.py", "whole.py")
        return reach.digest()

    base = digest()
    _edit(package / "maths.py", "return x - 1", "return x - 2")
    assert digest() != base


def test_a_claims_own_code_follows_its_measure_and_not_another_claims(toy):
    package, _ = toy
    (package / "claims.py").write_text(textwrap.dedent('''
        import numpy as np
        from toypkg.maths import double


        def helper(values):
            return np.asarray(values) * 2


        def other_helper(values):
            return values


        def first(frames, spec):
            """Its docstring."""
            return helper(double(frames["a"]))


        def second(frames, spec):
            return other_helper(frames["b"])
        '''))
    claims = importlib.import_module("toypkg.claims")
    claim = Claim("here", "it holds", claims.first)
    base = claim_code(claim)
    _edit(package / "claims.py", "return values\n", "return values + 1\n")  # the other claim's helper
    assert claim_code(claim) == base
    _edit(package / "claims.py", '"""Its docstring."""', '"""Another docstring."""')
    assert claim_code(claim) == base
    _edit(package / "claims.py", "np.asarray(values) * 2", "np.asarray(values) * 3")
    assert claim_code(claim) != base
    _edit(package / "claims.py", "np.asarray(values) * 3", "np.asarray(values) * 2")
    _edit(package / "maths.py", "SCALE = 2.0", "SCALE = 3.0")  # reached in another module
    assert claim_code(claim) != base


def test_rule_wiring_is_read_without_comments_or_rule_docstrings(tmp_path):
    rules = tmp_path / "rules.smk"
    rules.write_text('rule a:\n    """Writes a."""\n    input:\n        "x.parquet",  # the table\n    output:\n        "a.parquet"\n')
    base = rules_text(rules)
    rules.write_text('rule a:\n    """Writes a, eq. (2)."""\n    # a comment\n    input:\n        "x.parquet",\n'
                     '    output:\n        "a.parquet"\n')
    assert rules_text(rules) == base
    rules.write_text('rule a:\n    """Writes a."""\n    input:\n        "y.parquet",\n    output:\n        "a.parquet"\n')
    assert rules_text(rules) != base


JOB = '''job_rule(
    "simulate_toy",
    "The toy's table, eq. (3).",
    "scripts/simulate_toy.py",
    "<results>/toy.parquet",
    params=dict(block=canonical(TOY["block"])),
)
'''
FIGURE = '''figure_rule(
    "plot_toy_curve",
    "toy/curve",
    "The toy's curve.",
    dict(table=rules.simulate_toy.output[0]),
)
'''


def test_the_wiring_leaves_out_the_figures_and_the_rules_docstrings_but_not_what_a_job_is_handed(tmp_path):
    """Method 2: a figure feeds no claim, and a rule's docstring decides nothing; method 1 read both."""
    rules = tmp_path / "rules.smk"
    rules.write_text(JOB)
    base, first = rules_text(rules), rules_text(rules, 1)
    rules.write_text(JOB.replace("eq. (3)", "eq. (4), at each seed") + "\n" + FIGURE)
    assert rules_text(rules) == base and rules_text(rules, 1) != first
    rules.write_text(JOB.replace('"The toy\'s table, eq. (3).",', 'doc="Another docstring",'))
    assert rules_text(rules) == base
    rules.write_text(JOB.replace('TOY["block"]', 'TOY["other"]') + FIGURE)
    assert rules_text(rules) != base
    rules.write_text(JOB.replace('"<results>/toy.parquet"', '"<results>/toy_{seed}.parquet"'))
    assert rules_text(rules) != base


@pytest.fixture
def scratch(tmp_path, repo, monkeypatch):
    """A copy of the package; studies loaded from the repository, their folders moved into the copy."""
    from icdenoise.pipeline.config import load_yaml, validate_config

    copy = tmp_path / "icdenoise"
    shutil.copytree(repo / "src" / "icdenoise", copy, ignore=shutil.ignore_patterns("__pycache__"))
    config = load_yaml(repo / "config" / "config.yaml")
    studies = validate_config(config, repo / "workflow" / "schemas")
    monkeypatch.setitem(codedeps.TRACKED, "icdenoise", codedeps.TRACKED["icdenoise"])
    moved = {name: dataclasses.replace(study, folder=copy / "studies" / name) for name, study in studies.items()}
    return copy, moved, config


def test_a_new_task_in_maths_leaves_the_studies_that_never_sample_it_alone(scratch, repo):
    copy, studies, config = scratch

    def codes():
        return {name: study_code(study, repo / "workflow", codedeps.trains_in_shared_stage(study, config))
                for name, study in studies.items()}

    base = codes()
    tasks = copy / "maths" / "tasks.py"
    tasks.write_text(tasks.read_text() + "\n\ndef sample_ring(n, generator):\n    return generator.normal(size=n)\n")
    assert codes() == base
    _edit(copy / "maths" / "adam.py", "Adam (Kingma & Ba 2015", "Adam, as written (Kingma & Ba 2015")  # a docstring
    assert codes() == base
    _edit(tasks, "LowRankMixture)}", "LowRankMixture, Sphere)}")  # the registry the shared stage samples from
    changed = codes()
    assert changed["onelayer"] != base["onelayer"] and changed["alltoken"] != base["alltoken"]
    assert changed["memory"] == base["memory"]  # memory samples no task


def test_a_real_computation_re_registers_the_studies_that_run_it(scratch, repo):
    copy, studies, config = scratch
    memory = studies["memory"]
    base = study_code(memory, repo / "workflow", False)
    fits = copy / "maths" / "fits.py"
    _edit(fits, "    dof = x.size - 2\n", "    dof = x.size - 1\n")  # loglog_slope, which the capacity fits run
    assert study_code(memory, repo / "workflow", False) != base
    assert study_code(studies["mssa"], repo / "workflow", False) == study_code(
        dataclasses.replace(studies["mssa"], folder=repo / "src" / "icdenoise" / "studies" / "mssa"), repo / "workflow", False)


def test_a_new_figure_or_a_rules_docstring_in_a_studys_rules_re_registers_nothing(scratch, repo):
    """As docs/architecture.md adds a figure to a study: its claims keep their digests; what a job is handed does not."""
    copy, studies, config = scratch
    memory = studies["memory"]
    base = study_code(memory, repo / "workflow", False)
    text = memory.rules.read_text()
    docstring = '"Slides 8, 9 and 23: the bisected capacity of the Hebbian and one-step memories for one map, per d and seed."'
    assert text.count(docstring) == 1
    memory.rules.write_text(text.replace(docstring, '"The bisected capacity, eq. (1)."') + "\n" + FIGURE)
    assert study_code(memory, repo / "workflow", False) == base
    memory.rules.write_text(text.replace('canonical(MEMORY["capacity"])', 'canonical(MEMORY["capacity_confirmatory"])', 1))
    assert study_code(memory, repo / "workflow", False) != base


def test_moving_a_real_function_to_a_new_module_re_registers_nothing(scratch, repo):
    copy, studies, config = scratch
    memory = studies["memory"]
    base = study_code(memory, repo / "workflow", False)
    fits = copy / "maths" / "fits.py"
    text = fits.read_text()
    start, end = text.index("def loglog_slope("), text.index("def loglog_slope_where_defined(")
    imports = "".join(f"{line}\n" for line in text[:start].splitlines() if line.startswith(("import ", "from scipy")))
    (copy / "maths" / "slopes.py").write_text(f'"""Moved."""\n\n{imports}\n\n' + text[start:end])  # fits.py's imports
    fits.write_text(text[:start] + "from icdenoise.maths.slopes import loglog_slope\n\n\n" + text[end:])
    assert study_code(memory, repo / "workflow", False) == base
    _edit(copy / "maths" / "slopes.py", "    dof = x.size - 2\n", "    dof = x.size - 1\n")
    assert study_code(memory, repo / "workflow", False) != base
