"""The report's front page names the run's config files, its merged-config digest and the commits its
tables were written at (read back from their Parquet metadata), counts each study's verdicts from its
ledger's Parquet (first, in a table with the failing claims by name and whether they are registered), says
what is not built yet and how to build it, and lists the settings that differ from the run's parent config,
then from the paper config, under a banner when any do."""

import json
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from icdenoise.experiments.comparison import config_differences, parent_config, study_verdict_counts
from icdenoise.pipeline.config import ConfigFiles, load_yaml
from icdenoise.pipeline.registry import Study
from icdenoise.pipeline.report import (
    Parent,
    banner,
    build_command,
    built_targets,
    counts_text,
    difference_text,
    figure_blocks,
    front_page,
    ledger_summaries,
    ledger_summary,
    not_built_items,
    registration_text,
    study_differences,
)

SOURCES = {"run": "mine", "files": [{"file": "config/config.yaml", "sha256": "a" * 64}, {"file": "mine.yaml", "sha256": "b" * 64}],
           "merged_sha256": "0123456789abcdef" * 4}


def table_at(path, commit: str, dirty: bool):
    data = pa.table({"x": [1.0]}).replace_schema_metadata({b"icdenoise": json.dumps({"git_commit": commit, "git_dirty": dirty})})
    pq.write_table(data, path)
    return path


def test_the_front_page_names_config_digest_commits_and_studies(tmp_path):
    tables = [table_at(tmp_path / "a.parquet", "f" * 40, False), table_at(tmp_path / "b.parquet", "e" * 40, True),
              tmp_path / "not_built.parquet"]
    studies = {"onelayer": Study(name="onelayer", title="The core paper", claims={})}
    text = front_page(studies, SOURCES, tables)
    assert "the run ``mine``, built from ``config/config.yaml`` + ``mine.yaml`` (merged config sha256 ``0123456789ab``)" in text
    assert f"commit ``{'e' * 12} + uncommitted changes``, ``{'f' * 12}``." in text
    assert "- ``onelayer``: The core paper" in text


def test_a_report_before_any_table_says_so(tmp_path):
    assert "written at commit not built yet." in front_page({}, SOURCES, [tmp_path / "missing.parquet"])


def ledger_at(path, verdicts):
    pd.DataFrame({"claim": [f"c{i}" for i in range(len(verdicts))], "verdict": verdicts}).to_parquet(path)
    return path


def test_verdict_counts_come_from_each_ledger_as_built_and_say_when_one_is_not(tmp_path):
    ledgers = {"onelayer": ledger_at(tmp_path / "a.parquet", ["PASS", "FAIL", "PASS", "INCONCLUSIVE"]),
               "memory": tmp_path / "missing.parquet"}
    counts = study_verdict_counts(ledgers)
    assert counts == {"onelayer": {"PASS": 2, "FAIL": 1, "INCONCLUSIVE": 1, "MEASURED": 0}, "memory": None}
    assert counts_text(counts["onelayer"]) == "2 pass, 1 fail, 1 inconclusive, 0 measured (4 claims)"
    assert counts_text(counts["memory"]) == "ledger not built yet"


def test_an_older_ledger_without_a_verdict_column_counts_its_passed_column(tmp_path):
    path = tmp_path / "old.parquet"
    pd.DataFrame({"claim": ["a", "b"], "passed": [True, False]}).to_parquet(path)
    assert study_verdict_counts({"s": path}) == {"s": {"PASS": 1, "FAIL": 1, "INCONCLUSIVE": 0, "MEASURED": 0}}


PAPER = {"run": {"name": "paper"}, "execution": {"threads": 8}, "dataset": {"seed": 0, "n_prompts": 100},
         "onelayer": {"fig4a": {"context_lengths": [10, 20]}}}


def test_config_differences_are_key_by_key_and_leave_out_run_and_execution():
    config = {"run": {"name": "seed7"}, "execution": {"threads": 1}, "dataset": {"seed": 7, "n_prompts": 100},
              "onelayer": {"fig4a": {"context_lengths": [10]}}, "models": {"extra": {"layers": 2}}}
    differences = config_differences(config, PAPER)
    assert differences == [("dataset.seed", "0", "7"), ("onelayer.fig4a.context_lengths", "[10, 20]", "[10]"),
                           ("models.extra.layers", "–", "2")]
    assert [difference_text(*entry) for entry in differences][0] == "dataset.seed: 0 → 7"
    assert study_differences(differences, ["onelayer", "dataset"]) == [differences[1], differences[0]]


def test_a_figures_own_block_and_the_shared_blocks_come_before_its_siblings_each_setting_once():
    study_block = {"fig3": {}, "fig4a": {}, "fig4b": {}, "zipf": {}, "zipf_confirmatory": {}, "claims": {}}
    assert figure_blocks("onelayer", "fig3", study_block, ("cases", "training")) == ["onelayer.fig3", "cases", "training", "onelayer"]
    assert figure_blocks("memory", "memory/zipf_n", study_block, ()) == ["memory.zipf", "memory"]
    assert figure_blocks("memory", "memory/width", study_block, ("cases",)) == ["cases", "memory"]
    induction = {"induction": {}, "induction_shakespeare": {}}
    assert figure_blocks("memory", "memory/induction_shakespeare", induction, ()) == ["memory.induction_shakespeare", "memory"]
    assert figure_blocks("memory", "memory/induction", induction, ()) == ["memory.induction", "memory"]
    differences = [("onelayer.fig4a.seeds", "3", "1"), ("cases.linear.n", "16", "4"), ("onelayer.fig3.L", "500", "20")]
    blocks = figure_blocks("onelayer", "fig3", study_block, ("cases",))
    assert study_differences(differences, blocks) == [differences[2], differences[1], differences[0]]


def test_only_a_run_that_changes_a_setting_carries_the_banner():
    assert config_differences({**PAPER, "run": {"name": "renamed"}, "execution": {}}, PAPER) == []
    assert banner([]) == ""
    warning = banner([("dataset.seed", "0", "7")])
    assert "not the paper's" in warning and "1 setting of config/config.yaml" in warning


def test_the_front_page_counts_verdicts_warns_and_lists_the_changed_settings(tmp_path):
    studies = {"onelayer": Study(name="onelayer", title="The core paper", claims={}),
               "memory": Study(name="memory", title="Memories", claims={})}
    ledgers = {"onelayer": ledger_at(tmp_path / "a.parquet", ["PASS", "FAIL"]), "memory": tmp_path / "missing.parquet"}
    text = front_page(studies, SOURCES, [], study_verdict_counts(ledgers), [("dataset.seed", "0", "7")])
    assert "- ``onelayer``: The core paper — 1 pass, 1 fail, 0 inconclusive, 0 measured (2 claims)" in text
    assert "- ``memory``: Memories — ledger not built yet" in text
    assert "<li><code>dataset.seed: 0 → 7</code></li>" in text
    assert 'role="alert"' in text and "not the paper&#x27;s" in text
    paper = front_page(studies, SOURCES, [], study_verdict_counts(ledgers), [])
    assert 'role="alert"' not in paper and "Settings: the paper's own" in paper


REPO = Path(__file__).resolve().parents[3]


def test_a_runs_own_changes_come_first_and_are_listed_against_its_parent(tmp_path):
    """A named run over the smoke config (config/smoke.yaml, then a file that names the run and changes one key): its
    parent is config/config.yaml + config/smoke.yaml; the one key it changes there leads the list of the settings
    that differ from the paper config, which otherwise puts it among the smoke config's, in the paper's order."""
    (tmp_path / "myrun.yaml").write_text("run: {name: myrun}\ndataset: {seed: 7}\n")
    files = [REPO / "config" / "config.yaml", REPO / "config" / "smoke.yaml", tmp_path / "myrun.yaml"]
    layers = ConfigFiles(files, workdir=REPO).layers()
    config = {}
    for layer in layers.values():
        from snakemake.utils import update_config

        update_config(config, layer)
    paper = load_yaml(REPO / "config" / "config.yaml")
    names, parent = parent_config(layers)
    assert names == ["config/config.yaml", "config/smoke.yaml"]
    own = config_differences(config, parent)
    assert own == [("dataset.seed", "0", "7")]
    unordered, ordered = config_differences(config, paper), config_differences(config, paper, first=[key for key, *_ in own])
    assert [key for key, *_ in unordered].index("dataset.seed") > 0  # among the smoke config's, in the paper's order
    assert ordered[0] == ("dataset.seed", "0", "7") and sorted(ordered) == sorted(unordered)
    assert [entry for entry in ordered if entry[0] != "dataset.seed"] == [entry for entry in unordered if entry[0] != "dataset.seed"]


def test_the_parent_is_every_layer_before_the_last_that_changes_a_setting():
    paper, smoke = {"run": {"name": "paper"}, "dataset": {"seed": 0, "n": 9}}, {"run": {"name": "smoke"}, "dataset": {"n": 2}}
    assert parent_config({"config/config.yaml": paper}) == ([], {})  # the paper's own run: none
    assert parent_config({"config/config.yaml": paper, "smoke.yaml": smoke}) == (["config/config.yaml"], paper)
    # a file that sets only run, comparison or execution is no run's own layer; --config is the last layer
    names, merged = parent_config({"config/config.yaml": paper, "smoke.yaml": smoke, "compare.yaml": {"comparison": {"runs": ["x"]}}})
    assert names == ["config/config.yaml"]
    names, merged = parent_config({"config/config.yaml": paper, "smoke.yaml": smoke, "--config": {"dataset": {"seed": 3}}})
    assert names == ["config/config.yaml", "smoke.yaml"] and merged == {"run": {"name": "smoke"}, "dataset": {"seed": 0, "n": 2}}
    assert paper == {"run": {"name": "paper"}, "dataset": {"seed": 0, "n": 9}}  # the layers are not changed


def test_the_front_page_lists_the_parents_differences_in_view_and_the_papers_folded():
    differences = [("dataset.seed", "0", "7"), ("cases.linear.n", "16", "4")]
    parent = Parent(["config/config.yaml", "config/smoke.yaml"], [("dataset.seed", "0", "7")])
    text = front_page({}, SOURCES, [], {}, differences, parent=parent)
    own = text.index("1 setting of mine differs from its parent config, config/config.yaml + config/smoke.yaml")
    folded = text.index("<details><summary>2 settings of mine differ from config/config.yaml (the run&#x27;s own changes first)")
    assert own < text.index("<li><code>dataset.seed: 0 → 7</code></li>") < folded
    # a run merged over the paper config alone: one list, the paper's
    alone = front_page({}, SOURCES, [], {}, differences, parent=Parent(["config/config.yaml"], differences))
    assert "parent config" not in alone and "2 settings of mine differ from config/config.yaml (how jobs run" in alone



def toy_ledger(path):
    """Six rows: two claims of the source that fail (one registered, one not), one that holds, one undecided, a failing
    self-check and a failing reading superseded by one of the claims."""
    pd.DataFrame({
        "claim": ["a", "b", "c", "d", "own", "old_b"],
        "verdict": ["FAIL", "FAIL", "PASS", "INCONCLUSIVE", "FAIL", "FAIL"],
        "registered": [True, False, True, True, True, True],
        "exploratory": ["", "", "chosen after", "", "", ""],
        "self_check": ["", "", "", "", "checks our code", ""],
        "implied_by": [""] * 6,
        "superseded_by": ["", "", "", "", "", "b"],
    }).to_parquet(path)
    return path


def test_a_ledger_summary_counts_the_sources_claims_as_the_headline_and_names_the_failing_ones(tmp_path):
    summary = ledger_summary(pd.read_parquet(toy_ledger(tmp_path / "claims.parquet")))
    assert summary.claims == 4 and summary.verdicts == {"PASS": 1, "FAIL": 2, "INCONCLUSIVE": 1}
    assert summary.failing == ["a", "b"]
    assert summary.other_failing == [("old_b", "our superseded reading"), ("own", "self-check")]
    assert (summary.confirmatory, summary.exploratory, summary.not_registered) == (2, 1, 1)
    assert registration_text(summary) == "3 of 4 (1 exploratory); 1 not, not citable"
    assert ledger_summaries({"s": tmp_path / "claims.parquet", "t": tmp_path / "missing.parquet"})["t"] is None


def test_the_verdict_table_opens_the_front_page_with_counts_failing_claims_and_registration(tmp_path):
    studies = {"onelayer": Study(name="onelayer", title="The core paper", claims={}),
               "memory": Study(name="memory", title="Memories", claims={})}
    summaries = ledger_summaries({"onelayer": toy_ledger(tmp_path / "claims.parquet"), "memory": tmp_path / "missing.parquet"})
    missing = [("memory", ["memory/claims"], "snakemake --cores 2 memory --configfile config/smoke.yaml")]
    text = front_page(studies, SOURCES, [], {}, [("dataset.seed", "0", "7")], summaries=summaries, missing=missing,
                      everything="snakemake --cores 2 all --configfile config/smoke.yaml")
    table = text[text.index('<table class="icdenoise-verdicts">'):text.index("</table>")]
    assert text.index('role="alert"') < text.index("<table") < text.index("**This report**")
    assert ('<td class="number">4</td><td class="number">1</td><td class="number">2</td><td class="number">1</td>'
            "<td><code>a</code>, <code>b</code>; also failing: <code>old_b</code> (our superseded reading), "
            "<code>own</code> (self-check)</td><td>3 of 4 (1 exploratory); 1 not, not citable</td>") in table
    assert ('<td colspan="6">ledger not built yet: <code>snakemake --cores 2 memory --configfile config/smoke.yaml</code>'
            in table)
    assert ("- ``memory``: memory/claims — ``snakemake --cores 2 memory --configfile config/smoke.yaml``" in text
            and "``snakemake --cores 2 all --configfile config/smoke.yaml`` builds everything" in text)
    assert registration_text(ledger_summary(pd.DataFrame({"claim": ["x"], "verdict": ["PASS"], "registered": [False]}))) \
        == "none of 1: not citable"


def test_the_front_page_names_what_is_not_built_and_the_command_that_builds_it():
    missing = [("memory", ["memory/zipf_n", "memory/claims"], "snakemake --cores 2 memory --configfile config/smoke.yaml")]
    text = front_page({}, SOURCES, [], {}, [], missing=missing, everything="snakemake --cores 2 all --configfile config/smoke.yaml")
    assert ("- ``memory``: memory/zipf_n, memory/claims — ``snakemake --cores 2 memory --configfile config/smoke.yaml``" in text
            and "``snakemake --cores 2 all --configfile config/smoke.yaml`` builds everything" in text)
    assert "Not built yet" not in front_page({}, SOURCES, [], {}, [])


def test_the_report_targets_are_the_built_ones_each_job_whole(tmp_path):
    """A target is kept when every path of its stem (one job's outputs: a figure's PDF and PNG) exists."""
    for name in ("fig3.pdf", "fig3.png", "fig1.pdf", "claims.parquet"):
        (tmp_path / name).write_text("")
    paths = ["<figures>/fig1.pdf", "<figures>/fig1.png", "<figures>/fig3.pdf", "<figures>/fig3.png",
             "<figures>/claims.parquet", "<figures>/claims.md", "<figures>/claims.html"]
    resolve = lambda path: path.replace("<figures>", str(tmp_path))  # noqa: E731
    assert built_targets(paths, resolve) == ["<figures>/fig3.pdf", "<figures>/fig3.png"]
    assert not_built_items(paths, resolve, "<figures>") == ["fig1", "claims"]
    assert built_targets([], resolve) == []


def test_the_command_that_builds_a_part_names_the_runs_config_files_and_values(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    command = build_command(".venv/bin/snakemake", "onelayer", [tmp_path / "config" / "smoke.yaml", "/elsewhere/my run.yaml"])
    assert command == ".venv/bin/snakemake --cores 2 onelayer --configfile config/smoke.yaml '/elsewhere/my run.yaml'"
    assert build_command("snakemake", "all", (), {"dataset": {"seed": 7}}) == \
        'snakemake --cores 2 all --config \'dataset={"seed": 7}\''
