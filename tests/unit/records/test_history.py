"""A claim's history from git (icdenoise.records.history): when its bound and deciding settings took their current
values, its first committed result, and whether it is confirmatory, read from a real git repository made here.

Unit tests spawn no process in their bodies (tests/unit/conftest.py), so the repository is made, and read, once in
the module's fixture, before that guard; the tests check what was read. Its commits, in order:

1. define: config/config.yaml (claims `early`, `late`, `back`; `back` names the sub-block `sub`; training with a
   thread count) and config/long.yaml (the named run `long`, overriding `toy.other`);
2. `back`'s tolerance 0.1 → 0.05;   3. and back to 0.1;
4. `toy.other` changes, and the thread count moves to the execution block;
5. results: the default run's snapshot (rows early, late, back) and docs/toy.md naming `early` in prose and `twin`
   only inside a results marker;
6. `late`'s tolerance 0.1 → 0.2, and the claim `twin` added;
7. docs/toy.md: a paragraph naming the run `long` and `early`;
8. config/long.yaml changes `toy.other`.

A second repository (`merges`) has branches merged with ``--no-ff``, as the project merges its helpers' branches:
1. main: claims `early` and `vis`;   2. branch `side` from 1: claims `new` (sub-block `sub`) and `joint` (`other`);
3. main: `toy.other` changes;   4. `side` merged into main;   5. main: results (snapshot rows `new`, `joint`, `vis`);
6. branch `vision` from 3: `vis`'s tolerance changes;   7. `vision` merged into main (HEAD).
git's topological order lists 7, 6, 4, 2, 3, 1 for the config: `vision`'s commit 6, which lacks `new`, comes
before the commits that hold it.

A third (`same_edit`): 1. claim `early`;   2. branch `side`: `early`'s tolerance 0.1 → 0.2;   3. main: the same edit;
4. main: `toy.other` changes;   5. main merged into `side` (HEAD), whose config is main's whole.

A fourth (`side_result`): 1. claims `early` and `vis`;   2. branch `side`: the snapshot (rows `early`, `vis`);
3. main: `early`'s tolerance 0.1 → 0.2;   4. main: the same snapshot;   5. `side` merged into main (HEAD), its
snapshot the same as both parents'.
"""

import numpy as np
import pandas as pd
import pytest
import yaml
from snakemake.utils import update_config
from toy_git import WHO, ToyGit

from icdenoise.pipeline.registry import Study
from icdenoise.records.claims import Claim
from icdenoise.records.history import (NO_RESULT, Config, ClaimHistory, GitError, Repository, ledger_history,
                                       merged, prose_paragraphs, snapshot_claims, study_history, with_history,
                                       without_execution)

MEASURE = lambda frames, spec: np.array([1.0])  # noqa: E731 - never run here
CLAIMS = {"early": Claim("Fig. 1", "early", MEASURE), "late": Claim("Fig. 2", "late", MEASURE),
          "back": Claim("Fig. 3", "back", MEASURE, needs=(("case", "sub"),)),
          "twin": Claim("Fig. 3", "back again", MEASURE, needs=(("case", "sub"),))}
STUDY = Study(name="toy", title="Toy", claims=CLAIMS, shared_settings=("training",))


def spec(tolerance, **more):
    return {"paper_value": 1.0, "comparison": "within_absolute", "tolerance": tolerance, "tolerance_reason": "why",
            "inconclusive": ["interval"], **more}


def config(back=0.1, late=0.1, other=1, moved=False, twin=False):
    claims = {"early": spec(0.1), "late": spec(late), "back": spec(back, case="a")}
    if twin:
        claims["twin"] = spec(0.1, case="a")
    training = {"epochs": 5} if moved else {"epochs": 5, "threads": 1}
    return {"run": {"name": "paper"}, **({"execution": {"training": {"threads": 1}}} if moved else {}),
            "training": training, "toy": {"sub": {"cases": ["a"]}, "other": {"y": other}, "claims": claims}}


SNAPSHOT = ("# snapshot of: figures/toy/claims.parquet\n# run: paper\nclaim,verdict,ours_mean\nearly,PASS,1\n"
            "late,PASS,1\nback,PASS,1\n")
DOC = ("# Toy\n\n`early` passes (ours 1.0).\n\n<!-- ledger-claim: docs/ledgers/default/toy.csv twin -->"
       "*not yet built at this commit*<!-- /ledger-claim -->\n")


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    """The repository's commits (1-8, by number) and what history reads there, for the default run and for `long`."""
    toy = ToyGit(tmp_path_factory.mktemp("history"))
    root, git, commits, commit = toy.root, toy.git, toy.commits, toy.commit
    long_run = lambda y: {"run": {"name": "long"}, "toy": {"other": {"y": y}}}  # noqa: E731
    commit(1, {"config/config.yaml": config(), "config/long.yaml": long_run(5)})
    commit(2, {"config/config.yaml": config(back=0.05)})
    commit(3, {"config/config.yaml": config()})
    commit(4, {"config/config.yaml": config(other=2, moved=True)})
    commit(5, {"docs/ledgers/default/toy.csv": SNAPSHOT, "docs/toy.md": DOC})
    commit(6, {"config/config.yaml": config(other=2, moved=True, late=0.2, twin=True)})
    commit(7, {"docs/toy.md": DOC + "\nIn the run `long`, `early` passes too.\n"})
    commit(8, {"config/long.yaml": long_run(6)})
    repository = Repository(git)
    return {"commits": commits,
            "default": study_history(repository, STUDY, ["config/config.yaml"]),
            "long": study_history(repository, STUDY, ["config/config.yaml", "config/long.yaml"], "long/"),
            "ledger": ledger_history(root, STUDY, ["config/config.yaml"], "", workdir=root),
            "uncommitted": ledger_history(root, STUDY, ["config/config.yaml", "config/mine.yaml"], "mine/", workdir=root)}


MERGE_CLAIMS = {name: Claim("Fig. 3", name, MEASURE, needs=(("case", block),))
                for name, block in (("early", "sub"), ("vis", "sub"), ("new", "sub"), ("joint", "other"))}
MERGE_STUDY = Study(name="toy", title="Toy", claims=MERGE_CLAIMS, shared_settings=("training",))


def merge_config(other=1, side=False, vis=0.1):
    claims = {"early": spec(0.1), "vis": spec(vis)}
    if side:
        claims |= {"new": spec(0.1, case="a"), "joint": spec(0.2)}
    return {"training": {"epochs": 5}, "toy": {"sub": {"cases": ["a"]}, "other": {"y": other}, "claims": claims}}


@pytest.fixture(scope="module")
def merges(tmp_path_factory):
    """The commits of the repository with merged branches (1-7, by number; module docstring), the config file's
    text at each, and what history reads at HEAD for the default run."""
    toy = ToyGit(tmp_path_factory.mktemp("merges"))
    root, git, who, commits, texts = toy.root, toy.git, WHO, toy.commits, {}

    def commit(number, files):
        toy.commit(number, files)
        texts[number] = (root / "config/config.yaml").read_text()

    def merge(number, branch, files):
        try:  # the merged config is written below whether git's own merge of it conflicts or not
            git([*who, "merge", "-q", "--no-ff", "--no-commit", branch], b"")
        except GitError:
            pass
        commit(number, files)

    commit(1, {"config/config.yaml": merge_config()})
    main = git(["rev-parse", "--abbrev-ref", "HEAD"], b"").decode().strip()
    git(["checkout", "-q", "-b", "side"], b"")
    commit(2, {"config/config.yaml": merge_config(side=True)})
    git(["checkout", "-q", main], b"")
    commit(3, {"config/config.yaml": merge_config(other=2)})
    merge(4, "side", {"config/config.yaml": merge_config(other=2, side=True)})
    commit(5, {"docs/ledgers/default/toy.csv": "claim,verdict\nnew,PASS\njoint,PASS\nvis,PASS\n"})
    git(["checkout", "-q", "-b", "vision", commits[3]], b"")
    commit(6, {"config/config.yaml": merge_config(other=2, vis=0.3)})
    git(["checkout", "-q", main], b"")
    merge(7, "vision", {"config/config.yaml": merge_config(other=2, side=True, vis=0.3)})
    repository = Repository(git)
    return {"commits": commits, "texts": texts,
            "parents": {number: repository.parents[commit] for number, commit in commits.items()},
            "order": repository.touching(["config/config.yaml"]),
            "default": study_history(repository, MERGE_STUDY, ["config/config.yaml"])}


def test_the_merged_repository_is_the_one_the_docstring_describes(merges):
    commits, parents = merges["commits"], merges["parents"]
    assert parents[4] == (commits[3], commits[2]) and parents[7] == (commits[5], commits[6])
    assert parents[6] == (commits[3],)
    assert [commits[number] for number in (7, 6, 4, 2, 3, 1)] == merges["order"]  # 6 listed before 4 and 2
    assert yaml.safe_load(merges["texts"][7]) == merge_config(other=2, side=True, vis=0.3)


def test_a_claim_written_on_a_merged_branch_dates_from_its_branchs_commit(merges):
    """`new` was written in 2 on `side`; the merge 4 and the unrelated branch `vision` merged in 7 leave it as it was:
    its first result (5) came after it was written, so it is confirmatory. Walking git's topological order instead
    stops at 6, which lacks it, and dates it from the merge 7, after its result."""
    new, commits = merges["default"]["new"], merges["commits"]
    assert new.first_written == commits[2] and new.changed == ("toy.claims.new",)
    assert new.first_result == commits[5] and new.confirmatory and not new.settings_changed_after_result


def test_a_claim_whose_values_were_joined_by_a_merge_dates_from_the_merge(merges):
    """`joint`'s bound was written on `side` (2), its deciding sub-block `other` changed on main (3): its values as
    today's first stood together in the merge 4, where each parent lacks one of them."""
    joint, commits = merges["default"]["joint"], merges["commits"]
    assert joint.first_written == commits[4] and sorted(joint.changed) == ["toy.claims.joint", "toy.other.y"]
    assert joint.first_result == commits[5] and joint.confirmatory


def test_a_change_on_a_merged_branch_dates_from_that_branch_and_the_rest_from_the_start(merges):
    vis, early, commits = merges["default"]["vis"], merges["default"]["early"], merges["commits"]
    assert vis.first_written == commits[6] and vis.changed == ("toy.claims.vis.tolerance",)
    assert vis.first_result == commits[5] and not vis.confirmatory and "on a branch beside" in vis.why
    assert early.first_written == commits[1] and early.changed == ()  # never different: the first commit
    assert early.first_result is None and early.confirmatory


@pytest.fixture(scope="module")
def same_edit(tmp_path_factory):
    """The commits of the repository where both branches made the same edit (1-5; module docstring), the commits
    git's default history simplification lists for the config, and what history reads at HEAD."""
    toy = ToyGit(tmp_path_factory.mktemp("same_edit"))
    git, who, commits = toy.git, WHO, toy.commits
    commit = lambda number, content: toy.commit(number, {"config/config.yaml": content})  # noqa: E731

    commit(1, merge_config())
    main = git(["rev-parse", "--abbrev-ref", "HEAD"], b"").decode().strip()
    git(["checkout", "-q", "-b", "side"], b"")
    edited = merge_config()
    edited["toy"]["claims"]["early"]["tolerance"] = 0.2
    commit(2, edited)
    git(["checkout", "-q", main], b"")
    commit(3, edited)
    edited["toy"]["other"]["y"] = 2
    commit(4, edited)
    git(["checkout", "-q", "side"], b"")
    git([*who, "merge", "-q", "--no-ff", "-m", "commit 5", main], b"")
    commits[5] = git(["rev-parse", "HEAD"], b"").decode().strip()
    repository = Repository(git)
    return {"commits": commits, "parents": repository.parents[commits[5]],
            "touching": repository.touching(["config/config.yaml"]),
            "default": study_history(repository, MERGE_STUDY, ["config/config.yaml"])}


def test_a_merge_that_took_one_sides_file_whole_hides_neither_side(same_edit):
    """The merge 5 holds main's file whole, so git's default simplification follows main alone and hides `side`'s
    own commit 2; walked with every parent, `early`'s tolerance dates from 2, HEAD's own branch, which wrote it first
    (in topological order)."""
    commits = same_edit["commits"]
    assert same_edit["parents"] == (commits[2], commits[4]) and commits[2] in same_edit["touching"]
    early = same_edit["default"]["early"]
    assert early.first_written == commits[2] and early.changed == ("toy.claims.early.tolerance",)


@pytest.fixture(scope="module")
def side_result(tmp_path_factory):
    """The commits of the repository whose first result was committed on a merged branch (1-5; module docstring),
    git's default listing of the snapshot's commits, and what history reads at HEAD."""
    toy = ToyGit(tmp_path_factory.mktemp("side_result"))
    commits, snapshot = toy.commits, {"docs/ledgers/default/toy.csv": "claim,verdict\nearly,PASS\nvis,PASS\n"}
    toy.commit(1, {"config/config.yaml": merge_config()})
    main = toy.run("rev-parse", "--abbrev-ref", "HEAD").strip()
    toy.run("checkout", "-q", "-b", "side")
    toy.commit(2, snapshot)
    toy.run("checkout", "-q", main)
    edited = merge_config()
    edited["toy"]["claims"]["early"]["tolerance"] = 0.2
    toy.commit(3, {"config/config.yaml": edited})
    toy.commit(4, snapshot)
    toy.run("merge", "-q", "--no-ff", "-m", "commit 5", "side")
    commits[5] = toy.head()
    default = toy.run("log", "--format=%H", "HEAD", "--", "docs/ledgers/default/toy.csv").split()
    return {"commits": commits, "default_log": default,
            "history": study_history(Repository(toy.git), MERGE_STUDY, ["config/config.yaml"])}


def test_a_result_first_committed_on_a_merged_branch_counts_from_there(side_result):
    """git's default listing of the snapshot follows main alone at the merge 5 (its snapshot is main's) and hides
    `side`'s commit 2. `early`'s tolerance (3) was written beside that result, not before it: not confirmatory,
    though it precedes main's copy (4). `vis`, written in 1, precedes both first results and stays confirmatory."""
    commits, history = side_result["commits"], side_result["history"]
    assert commits[2] not in side_result["default_log"] and commits[4] in side_result["default_log"]
    early, vis = history["early"], history["vis"]
    assert early.first_written == commits[3] and early.first_result == commits[2]
    assert not early.confirmatory and "on a branch beside its first result" in early.why
    assert vis.first_written == commits[1] and vis.first_result in (commits[2], commits[4]) and vis.confirmatory


def test_a_claim_whose_tolerance_was_set_before_its_first_snapshot_is_confirmatory(history):
    early, commits = history["default"]["early"], history["commits"]
    assert early.first_written == commits[4]  # its study block (toy.other) last changed there
    assert early.first_result == commits[5] and early.confirmatory and not early.settings_changed_after_result
    assert early.changed == ("toy.other.y",) and early.exploratory == ""  # each sub-block of the study its own path


def test_a_claim_whose_tolerance_changed_after_its_snapshot_is_not_confirmatory(history):
    late, commits = history["default"]["late"], history["commits"]
    assert (late.first_written, late.first_result) == (commits[6], commits[5])
    assert late.settings_changed_after_result and not late.confirmatory
    assert late.changed == ("toy.claims.late.tolerance",)
    assert late.exploratory == (f"by history: its bound or deciding settings (toy.claims.late.tolerance) last changed in "
                                f"{commits[6][:7]}, after its first result in {commits[5][:7]}")


def test_a_setting_changed_and_changed_back_dates_from_the_change_back(history):
    """`back` reads only its sub-block `sub`: the change of toy.other in commit 4 is not its, and neither is the thread
    count that moved to the execution block there."""
    back, commits = history["default"]["back"], history["commits"]
    assert back.first_written == commits[3] and back.first_result == commits[5] and back.confirmatory


def test_a_claim_with_no_result_yet_is_confirmatory_and_a_marker_is_no_result(history):
    twin, commits = history["default"]["twin"], history["commits"]
    assert twin.first_written == commits[6] and twin.first_result is None and twin.confirmatory
    assert twin.columns() == {"first_written": commits[6][:7], "first_result": NO_RESULT,
                              "settings_changed_after_result": False, "confirmatory": True}


def test_a_named_runs_file_its_own_results_and_the_default_runs_where_its_values_are_the_same(history):
    long, commits = history["long"], history["commits"]
    assert long["early"].first_written == commits[8]  # config/long.yaml's toy.other; the default's change in 4 is overridden
    assert long["early"].first_result == commits[7]  # the paragraph naming the run, not the default run's snapshot
    assert long["early"].settings_changed_after_result and not long["early"].confirmatory
    assert long["back"].first_written == commits[3] and long["back"].first_result == commits[5]  # values as the default's
    assert long["late"].first_result is None  # no result of `long`, and its values are not the default run's


def test_a_ledger_job_reads_the_same_history_and_says_why_not_where_it_cannot(history):
    assert history["ledger"] == history["default"]
    assert all(not row.confirmatory and "config/mine.yaml is not committed" in row.why for row in history["uncommitted"].values())
    outside = ledger_history(None, STUDY, ["config/config.yaml"], "")
    assert outside["early"].columns()["first_written"] == "unknown" and not outside["early"].confirmatory


def test_the_ledger_gets_the_columns_and_keeps_the_configs_own_exploratory_mark():
    table = pd.DataFrame({"claim": ["a", "b", "c"], "exploratory": ["chosen after a result", "", ""]})
    histories = {"a": ClaimHistory("1" * 40, "2" * 40, False, True),
                 "b": ClaimHistory("3" * 40, "2" * 40, True, False, "its bound or deciding settings last changed in 3333333")}
    rows = with_history(table, histories)
    assert list(rows["first_written"]) == ["1111111", "3333333", "unknown"]
    assert list(rows["first_result"]) == ["2222222", "2222222", "unknown"]
    assert list(rows["confirmatory"]) == [True, False, False]
    assert list(rows["exploratory"]) == ["chosen after a result", "by history: its bound or deciding settings last changed in 3333333",
                                         "by history: unknown (no history was looked up)"]
    assert list(table["exploratory"]) == ["chosen after a result", "", ""]  # the table given is left as it was


def test_a_run_file_merges_as_snakemake_merges_it():
    base = {"a": {"b": 1, "c": {"d": 2}}, "e": [1], "f": 3}
    override = {"a": {"c": {"d": 5, "g": 6}}, "e": [2], "h": {"i": 1}}
    expected = yaml.safe_load(yaml.safe_dump(base))
    update_config(expected, override)
    assert merged(base, override) == expected and base == {"a": {"b": 1, "c": {"d": 2}}, "e": [1], "f": 3}


def test_how_a_job_runs_is_no_deciding_setting_and_an_emptied_block_is_left_out():
    old = {"epochs": 5, "threads": 1, "resources": {"mem_mb": 1}, "grid": {}}
    assert without_execution(old, {"threads": 2, "resources": {"mem_mb": 2}}) == {"epochs": 5, "grid": {}}


def test_a_config_is_parsed_block_by_block_as_the_whole_file_parses():
    text = "run: {name: x}  # c\n# a comment\nblock:\n  a: &one 1\n  b: [1, 2]\nother: *one\n"
    config = Config.of("run: {name: x}\nblock:\n  a: 1\n  b: [1, 2]\n")
    assert dict(config) == {"run": {"name": "x"}, "block": {"a": 1, "b": [1, 2]}}
    assert dict(Config.of(text)) == yaml.safe_load(text)  # an alias across blocks: the whole file is parsed
    assert dict(Config.of("{a: 1}")) == {"a": 1}


def test_results_are_read_from_prose_and_snapshot_rows():
    paragraphs = prose_paragraphs("A `claim_a` here.\n\n<!-- ledger-claim: x claim_b -->x<!-- /ledger-claim --> and memory_full\n")
    assert paragraphs == [frozenset({"A", "claim_a", "here"}), frozenset({"x", "and", "memory_full"})]
    assert snapshot_claims("# header: 1\nclaim,verdict\none,PASS\ntwo,FAIL\n") == {"one", "two"}


def test_a_sub_block_added_beside_the_others_is_no_change_but_a_new_setting_is():
    from icdenoise.records.history import same_settings

    today = {"fig3": {"seeds": [0, 1]}, "zipf": {"draws": 5}, "record_every": 4}
    assert same_settings({"fig3": {"seeds": [0, 1]}, "record_every": 4}, today)  # zipf came later, for its own claims
    assert not same_settings({"fig3": {"seeds": [0, 1]}, "zipf": {"draws": 5}}, today)  # a new scalar setting
    assert not same_settings({"fig3": {"seeds": [0]}, "record_every": 4}, today)  # a changed sub-block
    assert not same_settings({"fig3": {"seeds": [0, 1]}, "zipf": {"draws": 5}, "record_every": 4, "old": {}}, today)
    assert same_settings(0.1, 0.1) and not same_settings(0.1, 0.2)


def test_a_claim_without_needs_reads_only_the_sub_blocks_its_study_had_when_it_was_written():
    from icdenoise.records.history import claim_paths

    assert claim_paths("toy", "a", (), ("cases",), ["fig", "seed"]) == [("toy", "claims", "a"), ("toy", "fig"), ("toy", "seed"),
                                                                          ("cases",)]
    assert claim_paths("toy", "a", (("case", "fig"),), (), ["fig", "later"]) == [("toy", "claims", "a"), ("toy", "fig")]
    assert claim_paths("toy", "a", (), ()) == [("toy", "claims", "a"), ("toy", "<block without claims>")]
