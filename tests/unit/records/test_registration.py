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
