"""Pre-registration: a claim's digest follows everything its verdict depends on, the lock is current, and
a commit that changes a definition together with its study's results docs is found."""

import importlib.util
import sys

import numpy as np
import pytest

from icdenoise.records.claims import Claim
from icdenoise.pipeline import codedeps
from icdenoise.pipeline.definitions import claim_code
from icdenoise.records.registration import definition_digest, lock_text, premature_results, read_lock

SPEC = {"paper_value": 1.0, "comparison": "at_most", "tolerance": 0.1, "tolerance_reason": "why", "inconclusive": ["interval"]}


def _module(tmp_path, monkeypatch, name, source):
    """Module `name` of a tracked package `toyclaims` written to tmp_path, imported."""
    package = tmp_path / "toyclaims"
    package.mkdir(exist_ok=True)
    (package / "__init__.py").write_text("")
    path = package / f"{name}.py"
    path.write_text(source)
    monkeypatch.setitem(codedeps.TRACKED, "toyclaims", package)
    spec = importlib.util.spec_from_file_location(f"toyclaims.{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[f"toyclaims.{name}"] = module
    spec.loader.exec_module(module)
    return module


MEASURE = """
import numpy as np
def helper(x):
    return x * {factor}
def scaled(by):
    def measure(frames, spec):
        return np.array([helper(by)])
    return measure
def plateau(frames, spec):
    return None
"""


def test_the_digest_follows_the_helpers_the_closure_the_config_block_and_the_settings(tmp_path, monkeypatch):
    first = _module(tmp_path, monkeypatch, "claims_a", MEASURE.format(factor=2))
    second = _module(tmp_path, monkeypatch, "claims_b", MEASURE.format(factor=3))  # only the helper differs
    claim = Claim("here", "it holds", first.scaled(1.0))

    def digest(claim, spec=SPEC, settings={"block": {"seeds": [0, 1]}}):
        return definition_digest(claim, spec, settings, "code", claim_code)

    base = digest(claim)
    assert "Mult" in claim_code(claim) and "1.0" in claim_code(claim)  # the helper's product, the closed-over value
    assert digest(Claim("here", "it holds", first.scaled(1.0))) == base
    assert digest(Claim("here", "it holds", second.scaled(1.0))) != base
    assert digest(Claim("here", "it holds", first.scaled(2.0))) != base
    assert digest(claim, {**SPEC, "tolerance": 0.2}) != base
    assert digest(claim, {**SPEC, "inconclusive": []}) != base
    assert digest(claim, SPEC, {"block": {"seeds": [0, 1, 2]}}) != base
    assert definition_digest(claim, SPEC, {"block": {"seeds": [0, 1]}}, "other code", claim_code) != base
    assert digest(Claim("here", "it holds", first.scaled(1.0), rules={"r": first.plateau})) != base


def test_a_measure_outside_every_tracked_package_is_refused(tmp_path):
    path = tmp_path / "loose_claims.py"
    path.write_text("def measure(frames, spec):\n    return 1.0\n")
    spec = importlib.util.spec_from_file_location("loose_claims", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(ValueError, match="outside every tracked package"):
        claim_code(Claim("here", "it holds", module.measure))


def test_the_lock_reads_back_what_it_wrote():
    digests = {"a.one": "0123456789abcdef", "b.two": "fedcba9876543210"}
    assert read_lock(lock_text(digests)) == digests


def test_the_committed_lock_is_current(repo):
    spec = importlib.util.spec_from_file_location("lock_claims", repo / "scripts" / "lock_claims.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    locks = script.paper_locks()
    assert {path.parent.name for path in locks} == {"onelayer", "alltoken", "mssa", "memory"}  # each in its study's folder
    assert not (repo / "config" / "claims.lock").exists()  # no lock outside the studies' folders
    changed = []
    for path, current in locks.items():
        locked = read_lock(path.read_text()) if path.is_file() else {}
        changed += sorted(f"{path.parent.name}/claims.lock: {key}" for key in current.keys() | locked.keys()
                          if current.get(key) != locked.get(key))
    assert not changed, (f"{len(changed)} claims' definitions differ from their study's claims.lock, e.g. {changed[:10]}. "
                         "Run `python scripts/lock_claims.py` and commit the locks on their own, before the results")


def test_a_commit_changing_definitions_and_their_results_docs_together_is_found():
    docs = {"memory": ("docs/memory.md",), "mssa": ("docs/mssa.md",)}
    commits = [
        ("aaa1111", ["memory.gamma_mean 1111"], ["memory.gamma_mean 0000"], ["memory/claims.lock", "config/config.yaml"]),
        ("bbb2222", ["mssa.fig6_x 2222"], [], ["mssa/claims.lock", "docs/memory.md"]),  # another study's docs: fine
        ("ccc3333", ["memory.gamma_mean 3333"], ["memory.gamma_mean 1111"], ["memory/claims.lock", "docs/memory.md"]),
        ("ddd4444", ["# a comment"], [], ["mssa/claims.lock", "docs/mssa.md"]),
    ]
    problems = premature_results(commits, docs)
    assert len(problems) == 1 and problems[0].startswith("commit ccc3333 changes memory claim definitions")
    assert np.all([premature_results([commit], docs) == [] for commit in commits if commit[0] != "ccc3333"])


def test_a_claim_digest_changes_with_its_studys_code_and_never_with_the_execution_block(repo):
    from icdenoise.pipeline.config import load_yaml, validate_config
    from icdenoise.pipeline.codedeps import BOOKKEEPING, trains_in_shared_stage
    from icdenoise.pipeline.definitions import Reach, study_code

    config = load_yaml(repo / "config" / "config.yaml")
    studies = validate_config(config, repo / "workflow" / "schemas")
    memory, onelayer = studies["memory"], studies["onelayer"]

    def reached(study, shared):
        reach = Reach(exclude=BOOKKEEPING + (study.claims_module,))
        scripts = sorted(study.workflow.joinpath("scripts").glob("*.py"))
        scripts += [repo / "workflow" / "scripts" / f"{name}.py"
                    for name in (*(["train_ensemble"] if shared else []), "write_ledger")]
        for script in scripts:
            reach.add_script(script, script.name)
        return set(reach.modules())

    modules = reached(memory, False)
    assert {"icdenoise.studies.memory.planted", "train_memory_induction.py", "write_ledger.py",
            "icdenoise.maths.fits", "icdenoise.records.claims", "icdenoise.records.artifacts"} <= modules
    assert "icdenoise.pipeline.warmstart" not in modules and "train_ensemble.py" not in modules  # plumbing; another stage
    for name, study in studies.items():  # the ledger's bookkeeping (and the provenance walk `built from` uses) is in no digest
        names = reached(study, trains_in_shared_stage(study, config))
        assert names.isdisjoint(f"icdenoise.records.{module}" for module in
                                ("registration", "study_locks", "ledger_text", "pages", "provenance")), name
        assert ("icdenoise.studies.mssa.transformers" in names) == (name == "mssa"), name  # the mssa device string
    assert "train_ensemble.py" in reached(onelayer, True)
    assert trains_in_shared_stage(onelayer, config) and not trains_in_shared_stage(memory, config)
    assert "execution" not in memory.claim_settings(config) and "execution" not in onelayer.claim_settings(config)
    assert study_code(memory, repo / "workflow", False) == study_code(memory, repo / "workflow", False)
    changed = {**config, "execution": {**config["execution"], "training": {"device": "cpu", "threads": 7}}}
    assert onelayer.claim_settings(changed) == onelayer.claim_settings(config)
