"""A study's shared blocks as its claims read them (icdenoise.pipeline.registry.Study.shared_view): a case or model
it does not read changes neither its claims' registered settings nor their history; one it reads changes both.

The repository (made once, in the module's fixture: unit tests spawn no process in their bodies) has, in order:
1. config/config.yaml: cases `a` (which the toy study names) and `b` (which it does not), epochs for both;
2. a snapshot with a result of the claim `c`;
3. case `b` changes, and a case `new` with its epochs is added (another study's, or the leaderboard's);
4. case `a` changes.
"""

import pytest
from toy_git import ToyGit

from icdenoise.pipeline.registry import Run, Study
from icdenoise.records.claims import Claim
from icdenoise.records.history import Repository, study_history

CLAIMS = {"c": Claim("Fig. 1", "c", lambda frames, spec: None)}
STUDY = Study(name="toy", title="Toy", claims=CLAIMS, runs=lambda config: {Run("a", "m", 5)},
              shared_settings=("cases", "models", "training"))
SPEC = {"paper_value": 1.0, "comparison": "within_absolute", "tolerance": 0.1, "tolerance_reason": "why"}


def config(a=1.0, b=1.0, new=False):
    cases = {"a": {"task": "linear", "sigma0_sq": a}, "b": {"task": "linear", "sigma0_sq": b}}
    epochs = {"a": 5, "b": 5}
    if new:
        cases["new"], epochs["new"] = {"task": "sphere"}, 9
    return {"cases": cases, "models": {"m": {"architecture": "linear"}, "other": {"architecture": "softmax"}},
            "training": {"seeds": [0], "epochs": epochs}, "toy": {"figure": {"case": "a"}, "claims": {"c": SPEC}}}


def test_the_shared_view_keeps_what_the_study_reads_whole_and_drops_the_rest():
    view = STUDY.shared_view(config(new=True))
    assert view == {"cases": {"a": {"task": "linear", "sigma0_sq": 1.0}}, "models": {"m": {"architecture": "linear"}},
                    "training": {"seeds": [0], "epochs": {"a": 5}}}
    assert STUDY.claim_settings(config(b=2.0, new=True)) == STUDY.claim_settings(config())
    assert STUDY.claim_settings(config(a=2.0)) != STUDY.claim_settings(config())
    named = Study(name="toy", title="Toy", claims=CLAIMS, shared_settings=("cases",))  # no runs: only what it names
    assert named.reads(config()) == {"a"}


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    repository = ToyGit(tmp_path_factory.mktemp("reading"))
    repository.commit(1, {"config/config.yaml": config()})
    repository.commit(2, {"docs/ledgers/default/toy.csv": "claim,verdict\nc,PASS\n"})
    repository.commit(3, {"config/config.yaml": config(b=2.0, new=True)})
    at_3 = study_history(Repository(repository.git), STUDY, ["config/config.yaml"])
    repository.commit(4, {"config/config.yaml": config(a=2.0, b=2.0, new=True)})
    return repository.commits, at_3, study_history(Repository(repository.git), STUDY, ["config/config.yaml"])


def test_a_case_the_study_does_not_read_dates_none_of_its_claims(history):
    commits, at_3, _ = history
    assert at_3["c"].first_written == commits[1] and at_3["c"].first_result == commits[2] and at_3["c"].confirmatory


def test_a_case_the_study_reads_dates_its_claims(history):
    commits, _, at_4 = history
    assert at_4["c"].first_written == commits[4] and at_4["c"].settings_changed_after_result
    assert at_4["c"].changed == ("cases.a",)
