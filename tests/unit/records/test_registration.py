"""Pre-registration: a claim's digest follows everything its verdict depends on, the lock is current, and
a commit that changes a definition together with its study's results docs is found."""

import importlib.util
import sys

import numpy as np
import pytest

from icdenoise.records.claims import Claim
from icdenoise.pipeline import codedeps
from icdenoise.pipeline.definitions import claim_code
from icdenoise.records.registration import definition_digest, lock_text, premature_results, read_lock, registered_in

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
    digests = {"a.one": "2:0123456789abcdef", "b.two": "2:fedcba9876543210"}
    assert read_lock(lock_text(digests)) == digests
    earlier = {"a.one": "1111222233334444", "b.two": "5555666677778888"}
    both = lock_text(digests, earlier)
    assert read_lock(both) == digests and read_lock(both, 2) == digests and read_lock(both, 1) == earlier


def test_a_line_of_a_new_method_carries_the_registration_of_the_untouched_line_beside_it():
    """Newest first: b1 registered the method-1 line, c1 added the method-2 line beside it, d1 dropped the method-1
    line; a method-2 line registers anew where its own commit also changed the method-1 line, where no method-1 line
    stood, or where it changes after the method-1 lines are gone."""
    old, new = "s.claim 1111222233334444", "s.claim 2:aaaabbbbccccdddd"
    history = [("e1", [], ["s.other 1111000011110000"]), ("d1", [], [old]),
               ("c1", ["# the method before:", new, "s.fresh 2:0000111122223333"], ["# a header line"]),
               ("b1", [old, "s.other 1111000011110000"], ["s.claim 9999888877776666"]), ("a1", ["s.claim 9999888877776666"], [])]
    assert registered_in(history, new) == "b1" and registered_in(history, old) is None
    assert registered_in(history[2:], old) == "b1"
    assert registered_in(history, "s.fresh 2:0000111122223333") == "c1"  # a new claim: no line of the method before
    changed = [("c1", [new, "s.claim 5555666677778888"], [old]), *history[3:]]  # the definition changed with the method
    assert registered_in(changed, new) == "c1"
    later = [("f1", ["s.claim 2:eeeeffff00001111"], [new]), *history]  # changed after the method-1 lines were dropped
    assert registered_in(later, "s.claim 2:eeeeffff00001111") == "f1"
    gone = [("c1", [new], []), ("b2", [], [old]), *history[3:]]  # the method-1 line was gone before the method-2 line came
    assert registered_in(gone, new) == "c1"


def test_the_committed_lock_is_current(repo):
    spec = importlib.util.spec_from_file_location("lock_claims", repo / "scripts" / "lock_claims.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    locks = script.paper_locks()
    assert {path.parent.name for path in locks} == {"onelayer", "alltoken", "mssa", "memory"}  # each in its study's folder
    assert not (repo / "config" / "claims.lock").exists()  # no lock outside the studies' folders
    earlier = {} if script.EARLIER_METHOD is None else script.paper_locks(script.EARLIER_METHOD)
    changed = []
    for path, current in locks.items():
        text = path.read_text() if path.is_file() else ""
        for method, expected in ((script.METHOD, current), (script.EARLIER_METHOD, earlier.get(path, {}))):
            locked = read_lock(text, method) if method is not None else {}
            changed += sorted(f"{path.parent.name}/claims.lock: {key} (method {method})" for key in expected.keys() | locked.keys()
                              if expected.get(key) != locked.get(key))
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
