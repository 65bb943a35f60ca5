"""Pre-registration: a claim's digest follows everything its verdict depends on, the lock is current, and
a commit that changes a definition together with its study's results docs is found."""

import importlib.util
import sys

import numpy as np

from icdenoise.records.claims import Claim
from icdenoise.records.registration import code_text, definition_digest, lock_text, premature_results, read_lock

SPEC = {"paper_value": 1.0, "comparison": "at_most", "tolerance": 0.1, "tolerance_reason": "why", "inconclusive": ["interval"]}


def _module(tmp_path, name, source):
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
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
"""


def test_the_digest_follows_the_helpers_the_closure_the_config_block_and_the_settings(tmp_path):
    first = _module(tmp_path, "claims_a", MEASURE.format(factor=2))
    second = _module(tmp_path, "claims_b", MEASURE.format(factor=3))  # only the helper differs
    claim = Claim("here", "it holds", first.scaled(1.0))
    base = definition_digest(claim, SPEC, {"block": {"seeds": [0, 1]}})
    assert "return x * 2" in code_text(claim.measure) and "1.0" in code_text(claim.measure)
    assert definition_digest(Claim("here", "it holds", first.scaled(1.0)), SPEC, {"block": {"seeds": [0, 1]}}) == base
    assert definition_digest(Claim("here", "it holds", second.scaled(1.0)), SPEC, {"block": {"seeds": [0, 1]}}) != base
    assert definition_digest(Claim("here", "it holds", first.scaled(2.0)), SPEC, {"block": {"seeds": [0, 1]}}) != base
    assert definition_digest(claim, {**SPEC, "tolerance": 0.2}, {"block": {"seeds": [0, 1]}}) != base
    assert definition_digest(claim, {**SPEC, "inconclusive": []}, {"block": {"seeds": [0, 1]}}) != base
    assert definition_digest(claim, SPEC, {"block": {"seeds": [0, 1, 2]}}) != base
    assert definition_digest(Claim("here", "it holds", first.scaled(1.0), rules={"r": lambda f, s: None}), SPEC,
                             {"block": {"seeds": [0, 1]}}) != base


def test_the_lock_reads_back_what_it_wrote():
    digests = {"a.one": "0123456789abcdef", "b.two": "fedcba9876543210"}
    assert read_lock(lock_text(digests)) == digests


def test_the_committed_lock_is_current(repo):
    spec = importlib.util.spec_from_file_location("lock_claims", repo / "scripts" / "lock_claims.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    locked = read_lock((repo / "config" / "claims.lock").read_text())
    current = script.paper_digests()
    changed = sorted(key for key in current.keys() | locked.keys() if current.get(key) != locked.get(key))
    assert not changed, (f"claims whose definition differs from config/claims.lock: {changed}. Run `python scripts/lock_claims.py` "
                         "and commit the lock on its own, before the results")


def test_a_commit_changing_definitions_and_their_results_docs_together_is_found():
    docs = {"memory": ("docs/memory.md",), "mssa": ("docs/mssa.md",)}
    commits = [
        ("aaa1111", ["memory.gamma_mean 1111"], ["memory.gamma_mean 0000"], ["config/claims.lock", "config/config.yaml"]),
        ("bbb2222", ["mssa.fig6_x 2222"], [], ["config/claims.lock", "docs/memory.md"]),  # another study's docs: fine
        ("ccc3333", ["memory.gamma_mean 3333"], ["memory.gamma_mean 1111"], ["config/claims.lock", "docs/memory.md"]),
        ("ddd4444", ["# a comment"], [], ["config/claims.lock", "docs/mssa.md"]),
    ]
    problems = premature_results(commits, docs)
    assert len(problems) == 1 and problems[0].startswith("commit ccc3333 changes memory claim definitions")
    assert np.all([premature_results([commit], docs) == [] for commit in commits if commit[0] != "ccc3333"])


def test_the_code_digest_follows_each_files_bytes_and_name_not_the_checkouts_place(tmp_path):
    from icdenoise.pipeline.codedeps import code_digest

    for place in ("one", "two"):
        (tmp_path / place / "scripts").mkdir(parents=True)
        (tmp_path / place / "scripts" / "a.py").write_text("x = 1\n")
        (tmp_path / place / "scripts" / "b.py").write_text("y = 2\n")
    files = lambda place: [tmp_path / place / "scripts" / name for name in ("a.py", "b.py")]  # noqa: E731
    base = code_digest(files("one"), tmp_path / "one")
    assert code_digest(files("two"), tmp_path / "two") == base  # another folder, the same code
    assert code_digest(list(reversed(files("one"))), tmp_path / "one") == base  # order-free
    (tmp_path / "two" / "scripts" / "b.py").write_text("y = 3\n")
    assert code_digest(files("two"), tmp_path / "two") != base
    (tmp_path / "one" / "scripts" / "c.py").write_text("x = 1\n")
    assert code_digest([tmp_path / "one" / "scripts" / "c.py", files("one")[1]], tmp_path / "one") != base  # a renamed file


def test_a_claim_digest_changes_with_its_studys_code_and_never_with_the_execution_block(repo):
    from icdenoise.pipeline.config import load_yaml, validate_config
    from icdenoise.pipeline.codedeps import study_code, study_code_files, trains_in_shared_stage

    config = load_yaml(repo / "config" / "config.yaml")
    studies = validate_config(config, repo / "workflow" / "schemas")
    memory, onelayer = studies["memory"], studies["onelayer"]
    files = {path.name for path in study_code_files(memory, repo / "workflow", trains_in_shared_stage(memory, config))}
    assert {"planted.py", "write_ledger.py", "claims.py", "train_memory_induction.py", "fits.py"} <= files
    assert "train_ensemble.py" not in files and "warmstart.py" not in files  # another stage's code; the plumbing
    for name, study in studies.items():  # the ledger's bookkeeping (and the provenance walk `built from` uses) is in no digest
        names = {path.name for path in study_code_files(study, repo / "workflow", trains_in_shared_stage(study, config))}
        assert {"registration.py", "study_locks.py", "ledger_text.py", "pages.py", "provenance.py"}.isdisjoint(names), name
        assert ("transformers.py" in names) == (name == "mssa"), name  # the mssa device string: its own code only
    paths = {path.parts[-2:] for path in study_code_files(memory, repo / "workflow", False)}
    assert {("records", "claims.py"), ("memory", "claims.py"), ("records", "artifacts.py")} <= paths  # verdicts, tables
    assert "train_ensemble.py" in {path.name for path in study_code_files(onelayer, repo / "workflow", True)}
    assert trains_in_shared_stage(onelayer, config) and not trains_in_shared_stage(memory, config)
    assert "execution" not in memory.claim_settings(config) and "execution" not in onelayer.claim_settings(config)
    assert study_code(memory, config, repo / "workflow") == study_code(memory, config, repo / "workflow")
    changed = {**config, "execution": {**config["execution"], "training": {"device": "cpu", "threads": 7}}}
    assert onelayer.claim_settings(changed) == onelayer.claim_settings(config)
