"""The claims machinery: its three verdicts, intervals and inconclusive rules, a passing, a failing and an
undecided claim, and names read from the config."""

import numpy as np
import pandas as pd
import pytest

from icdenoise.pipeline.config import load_yaml, validate_config
from icdenoise.records.claims import Claim, Measurement, ledger, mean_interval, reference_problems, straddles, verdict
from icdenoise.records.ledger_text import conclusions, headline, markdown, twinned, twins
from icdenoise.studies.onelayer.claims import CLAIMS as ONELAYER


@pytest.mark.parametrize("value,paper,comparison,tolerance,expected", [
    (0.329, 0.327, "within_absolute", 0.01, True),
    (0.35, 0.327, "within_absolute", 0.01, False),
    (1.67, 1.607, "within_relative", 0.10, True),
    (1.90, 1.607, "within_relative", 0.10, False),
    (5.2, 10.0, "at_most", 0.0, True),
    (10.5, 10.0, "at_most", 0.0, False),
    (1.4, 1.0, "at_least", 0.0, True),
    (0.98, 1.0, "at_least", 0.0, False),
])
def test_verdicts(value, paper, comparison, tolerance, expected):
    assert verdict(value, paper, comparison, tolerance) is expected


def test_unknown_comparison_is_an_error():
    with pytest.raises(ValueError, match="within_absolute"):
        verdict(1.0, 1.0, "roughly", 0.1)


def _fig3_rows(alpha_beta, case="linear"):
    return pd.DataFrame({"case": case, "model": "linear", "seed": range(len(alpha_beta)), "alpha_beta": alpha_beta})


def _spec(**names):
    return {"paper_value": 0.327, "comparison": "within_absolute", "tolerance": 0.01, "tolerance_reason": "seed spread",
            "inconclusive": ["interval"], **names}


SOURCES = {"run": "paper", "files": [{"file": "config/config.yaml", "sha256": "ab" * 32}], "merged_sha256": "cd" * 32}


def test_ledger_passes_fails_and_leaves_undecided_on_the_mean_and_its_interval():
    config = {"fig3_linear_alpha_beta": _spec(case="linear", model="linear")}
    registered = {"defined_in": "abc1234", "built_from": "def5678 (clean)", "registered": True, "registration": "registered"}
    passing = ledger(ONELAYER, {"fig3": _fig3_rows([0.328, 0.330, 0.329])}, config, {"fig3_linear_alpha_beta": registered})
    failing = ledger(ONELAYER, {"fig3": _fig3_rows([0.30, 0.302, 0.301])}, config)
    undecided = ledger(ONELAYER, {"fig3": _fig3_rows([0.30, 0.36])}, config)  # mean 0.33 passes; its interval is wide
    assert [passing.loc[0, "verdict"], failing.loc[0, "verdict"], undecided.loc[0, "verdict"]] == ["PASS", "FAIL", "INCONCLUSIVE"]
    assert "reaches both sides of the bound" in undecided.loc[0, "why_inconclusive"] and passing.loc[0, "why_inconclusive"] == ""
    assert (failing.loc[0, "ours_min"], failing.loc[0, "ours_max"], failing.loc[0, "n_values"]) == (0.30, 0.302, 3)
    assert failing.loc[0, "ours_mean"] == pytest.approx(0.301)
    low, high = mean_interval(np.array([0.30, 0.302, 0.301]))
    assert (failing.loc[0, "interval_low"], failing.loc[0, "interval_high"]) == (low, high)
    assert passing.loc[0, "defined_in"] == "abc1234" and failing.loc[0, "defined_in"] == "unknown"
    assert passing.loc[0, "registered"] and not failing.loc[0, "registered"] and failing.loc[0, "registration"].startswith("not registered")
    text = markdown(pd.concat([passing, failing, undecided], ignore_index=True), "a study", "snakemake x", SOURCES)
    assert ("3 claims of the source. Registered, confirmatory: 1 pass, 0 fail, 0 inconclusive. Not registered (not citable): 0 pass, 1 fail, 1 inconclusive."
            in text) and "**FAIL**" in text and "*INCONCLUSIVE*" in text and "def5678 (clean)" in text
    assert "# Claims ledger: a study" in text and "## What we can and cannot conclude" in text and "abc1234" in text
    assert ("Run `paper`. Config: `config/config.yaml` (sha256 abababababab); merged config sha256 cdcdcdcdcdcd (settings "
            "only: the execution block, which changes no number, is left out).") in text


def test_the_t_interval_of_the_mean_covers_as_often_as_it_says():
    rng = np.random.default_rng(3)
    covered = [low <= 0.0 <= high for low, high in (mean_interval(rng.standard_normal(4)) for _ in range(4000))]
    assert np.mean(covered) == pytest.approx(0.95, abs=0.01)  # 4000 trials: the binomial standard error is 0.0034


@pytest.mark.parametrize("interval,comparison,expected", [
    ((0.30, 0.32), "within_absolute", True),   # reaches below 0.317
    ((0.32, 0.33), "within_absolute", False),  # inside [0.317, 0.337]
    ((0.30, 0.36), "within_absolute", True),   # covers the whole pass region and both sides
    ((0.20, 0.30), "within_absolute", False),  # wholly outside
    ((0.20, 0.33), "at_most", False),          # ≤ 0.327 + 0.01 throughout
    ((0.30, 0.34), "at_most", True),
])
def test_an_interval_straddles_when_it_reaches_both_regions(interval, comparison, expected):
    assert straddles(interval, 0.327, comparison, 0.01) is expected


def test_one_value_without_an_interval_is_undecided_only_under_the_interval_rule():
    registry = {"c": Claim("here", "it holds", lambda frames, spec: np.array([0.327]))}
    assert ledger(registry, {}, {"c": _spec()}).loc[0, "verdict"] == "INCONCLUSIVE"
    assert ledger(registry, {}, {"c": _spec(inconclusive=[])}).loc[0, "verdict"] == "PASS"
    exact = {"c": Claim("here", "it holds", lambda frames, spec: Measurement(np.array([0.327]), (0.326, 0.328), "± 2 SE"))}
    row = ledger(exact, {}, {"c": _spec()}).iloc[0]
    assert (row["verdict"], row["interval_low"], row["interval_method"]) == ("PASS", 0.326, "± 2 SE")


def test_a_claims_own_rule_makes_it_inconclusive_only_when_configured_and_when_it_fires():
    def on_plateau(frames, spec):
        return "both on the plateau" if frames["errors"]["error"].min() >= spec["plateau"] else None

    registry = {"c": Claim("here", "close", lambda frames, spec: Measurement(np.array([0.0]), (0.0, 0.0)), rules={"plateau": on_plateau})}
    stuck, learned = {"errors": pd.DataFrame({"error": [0.99, 1.0]})}, {"errors": pd.DataFrame({"error": [0.1, 1.0]})}
    assert ledger(registry, stuck, {"c": _spec(paper_value=0.0, inconclusive=["plateau"], plateau=0.9)}).loc[0, "verdict"] == "INCONCLUSIVE"
    assert ledger(registry, learned, {"c": _spec(paper_value=0.0, inconclusive=["plateau"], plateau=0.9)}).loc[0, "verdict"] == "PASS"
    assert ledger(registry, stuck, {"c": _spec(paper_value=0.0, inconclusive=[], plateau=0.9)}).loc[0, "verdict"] == "PASS"
    assert "plateau: both on the plateau" in ledger(registry, stuck, {"c": _spec(paper_value=0.0, plateau=0.9, inconclusive=["plateau"])}).loc[0, "why_inconclusive"]


def test_the_case_comes_from_the_claims_config_not_from_code():
    rows = pd.concat([_fig3_rows([0.9, 0.9], case="linear"), _fig3_rows([0.33, 0.33], case="renamed")])
    table = ledger(ONELAYER, {"fig3": rows}, {"fig3_linear_alpha_beta": _spec(case="renamed", model="linear")})
    assert table.loc[0, "ours_mean"] == pytest.approx(0.33) and table.loc[0, "verdict"] == "PASS"


def test_missing_table_rows_are_an_error_not_a_pass():
    with pytest.raises(KeyError, match="linear"):
        ledger(ONELAYER, {"fig3": _fig3_rows([]).iloc[0:0]}, {"fig3_linear_alpha_beta": _spec(case="linear", model="linear")})


def test_a_non_finite_measurement_is_an_error_not_a_verdict():
    registry = {"nan_claim": Claim("here", "it holds", lambda frames, spec: np.array([np.nan]))}
    with pytest.raises(ValueError, match="nan_claim"):
        ledger(registry, {}, {"nan_claim": _spec()})


@pytest.mark.parametrize("explained", [True, False])
def test_a_non_finite_measurement_is_inconclusive_only_where_a_rule_of_the_claim_explains_it(explained):
    rule = lambda frames, spec: "the grid does not bracket it" if explained else None  # noqa: E731
    registry = {"nan_claim": Claim("here", "it holds", lambda frames, spec: np.array([np.nan]), rules={"off_grid": rule})}
    config = {"nan_claim": _spec(inconclusive=["interval", "off_grid"])}
    if not explained:
        with pytest.raises(ValueError, match="none of its inconclusive rules"):
            ledger(registry, {}, config)
        return
    row = ledger(registry, {}, config).iloc[0]
    assert row["verdict"] == "INCONCLUSIVE" and row["why_inconclusive"] == "off_grid: the grid does not bracket it"
    assert np.isnan(row["ours_mean"]) and np.isnan(row["interval_low"])


def test_claim_names_are_checked_against_the_study_block():
    registry = {"c": Claim("here", "it holds", lambda frames, spec: np.array([1.0]), (("case", "fig3"), ("model", "fig3")))}
    study = {"fig3": {"cases": ["linear"], "models": ["softmax"]}}
    problems = reference_problems(registry, {"c": _spec(case="gmm", inconclusive=["interval", "plateau"])}, study, "s.claims")
    assert problems == ["s.claims.c.case: 'gmm' is not in fig3.cases (allowed: linear)",
                        "s.claims.c.model: missing (the claim reads its model from the config)",
                        "s.claims.c.inconclusive: 'plateau' is not a rule of this claim (allowed: interval)"]


def test_every_claim_states_where_and_what(repo):
    for study in validate_config(load_yaml(repo / "config" / "config.yaml"), repo / "workflow" / "schemas").values():
        for claim in study.claims.values():
            assert claim.location and claim.statement


def test_an_exploratory_claim_is_marked_and_counted_apart_from_the_confirmatory_ones():
    registered = {"defined_in": "abc1234", "built_from": "def5678 (clean)", "registered": True, "registration": "registered"}
    chosen_after = "the tolerance was written after the first results were seen"
    confirmatory = ledger(ONELAYER, {"fig3": _fig3_rows([0.328, 0.330, 0.329])},
                          {"fig3_linear_alpha_beta": _spec(case="linear", model="linear")}, {"fig3_linear_alpha_beta": registered})
    exploratory = ledger(ONELAYER, {"fig3": _fig3_rows([0.30, 0.302, 0.301])},
                         {"fig3_linear_alpha_beta": _spec(case="linear", model="linear", exploratory=chosen_after)},
                         {"fig3_linear_alpha_beta": registered})
    assert confirmatory.loc[0, "exploratory"] == "" and exploratory.loc[0, "exploratory"] == chosen_after
    text = markdown(pd.concat([confirmatory, exploratory], ignore_index=True), "a study", "snakemake x", SOURCES)
    assert ("2 claims of the source. Registered, confirmatory: 1 pass, 0 fail, 0 inconclusive. Registered, exploratory (a deciding "
            "setting chosen after a result): 0 pass, 1 fail, 0 inconclusive.") in text
    assert f"**FAIL** (exploratory: {chosen_after})" in text and "`fig3_linear_alpha_beta` (exploratory): ours" in text


def test_a_self_check_and_an_implied_claim_are_not_counted_as_reproductions():
    registered = {"defined_in": "abc1234", "built_from": "def5678 (clean)", "registered": True, "registration": "registered"}
    rows = _fig3_rows([0.328, 0.330, 0.329])
    tables = [ledger(ONELAYER, {"fig3": rows}, {"fig3_linear_alpha_beta": _spec(case="linear", model="linear", **extra)},
                     {"fig3_linear_alpha_beta": registered})
              for extra in ({}, {"self_check": "our closed form against its Monte Carlo"}, {"implied_by": "another_claim"})]
    text = markdown(pd.concat(tables, ignore_index=True), "a study", "snakemake x", SOURCES)
    assert ("1 claim of the source. Registered, confirmatory: 1 pass, 0 fail, 0 inconclusive. Self-checks of our own code, "
            "not reproductions: 1 pass, 0 fail, 0 inconclusive. Implied by another claim and counted there: 1.") in text
    assert "- **Reproduced** (1):" in text and "- **Self-checks of our own code (not reproductions)** (1):" in text
    assert "(implied by `another_claim`, counted there)" in text


def _verdict_rows(rows):
    """A ledger-like table: (claim, verdict, exploratory, superseded_by) per row, registered."""
    return pd.DataFrame([{"claim": claim, "verdict": verdict, "exploratory": exploratory, "superseded_by": superseded_by,
                          "self_check": "", "implied_by": "", "registered": True}
                         for claim, verdict, exploratory, superseded_by in rows])


def test_a_claim_and_its_confirmatory_twin_count_once_as_the_twin():
    table = _verdict_rows([("slope", "INCONCLUSIVE", "the grid was extended after a result", ""),
                           ("slope_confirmatory", "PASS", "", ""),
                           ("other", "FAIL", "", "")])
    assert twinned(table).tolist() == [True, False, False]
    text = headline(table)
    assert text == ("2 claims of the source. Registered, confirmatory: 1 pass, 1 fail, 0 inconclusive. Repeated by a "
                    "confirmatory twin and counted as the twin: 0 pass, 0 fail, 1 inconclusive.")


def test_a_twin_that_disagrees_with_its_original_is_named_with_both_verdicts():
    table = _verdict_rows([("slope", "INCONCLUSIVE", "the grid was extended after a result", ""),
                           ("slope_confirmatory", "PASS", "", ""),
                           ("rate", "PASS", "", ""), ("rate_confirmatory", "PASS", "", "")])
    assert twins(table) == {"slope": "slope_confirmatory", "rate": "rate_confirmatory"}
    lines = conclusions(table.assign(why_inconclusive="", ours_mean=1.0, paper_value=1.0, tolerance_reason=""))
    assert "- **A confirmatory twin that disagrees with the claim it repeats** (1; the twin, on fresh draws, is counted; " \
           "the original's draws are not pooled with it):" in lines
    assert "  - `slope`: INCONCLUSIVE; its twin `slope_confirmatory`: PASS" in lines
    assert not any("`rate`: PASS; its twin" in line for line in lines)


def test_a_twin_of_a_superseded_reading_repeats_the_claim_that_supersedes_it():
    table = _verdict_rows([("clusters", "PASS", "the floor was written after a result", "clusters_over_seeds"),
                           ("clusters_over_seeds", "INCONCLUSIVE", "as clusters", ""),
                           ("clusters_confirmatory", "INCONCLUSIVE", "", "")])
    assert twinned(table).tolist() == [False, True, False]
    assert headline(table).startswith("1 claim of the source. Registered, confirmatory: 0 pass, 0 fail, 1 inconclusive.")


def test_a_twin_without_its_original_counts_alone():
    table = _verdict_rows([("lonely_confirmatory", "PASS", "", ""), ("other", "PASS", "", "")])
    assert not twinned(table).any()
    assert headline(table).startswith("2 claims of the source.")


def test_every_shipped_confirmatory_twin_names_a_claim_of_its_study(repo):
    config = load_yaml(repo / "config" / "config.yaml")
    twins = 0
    for study in config["studies"]:
        claims = config[study].get("claims", {})
        table = pd.DataFrame({"claim": list(claims), "superseded_by": [spec.get("superseded_by", "") for spec in claims.values()]})
        names = [name for name in claims if name.endswith("_confirmatory")]
        twins += len(names)
        assert twinned(table).sum() == len(names), f"{study}: a twin whose original is not a claim of the study"
        for name in names:
            assert "exploratory" not in claims[name], f"{study}.{name}: a confirmatory twin marked exploratory"
    assert twins >= 11


def test_implied_by_must_name_another_configured_claim_of_the_study():
    spec = _spec(case="linear", model="linear", implied_by="fig3_linear_alpha_beta")
    study = {"fig3": {"cases": ["linear"], "models": ["linear"]}}
    problems = reference_problems(ONELAYER, {"fig3_linear_alpha_beta": spec}, study, "onelayer.claims")
    assert problems == ["onelayer.claims.fig3_linear_alpha_beta.implied_by: 'fig3_linear_alpha_beta' is not another configured "
                        "claim of this study (allowed: )"]


def test_a_claim_with_no_number_to_test_is_measured_with_no_verdict_and_counted_apart():
    registered = {"defined_in": "abc1234", "built_from": "def5678 (clean)", "registered": True, "registration": "registered"}
    why = "the source shows the curve and gives no number to test"
    rows = _fig3_rows([0.30, 0.302, 0.301])  # far outside the test's ± 0.01: a test would fail
    tested = ledger(ONELAYER, {"fig3": rows}, {"fig3_linear_alpha_beta": _spec(case="linear", model="linear")},
                    {"fig3_linear_alpha_beta": registered})
    measured_only = ledger(ONELAYER, {"fig3": rows}, {"fig3_linear_alpha_beta": {"case": "linear", "model": "linear", "no_verdict": why}},
                           {"fig3_linear_alpha_beta": registered})
    assert tested.loc[0, "verdict"] == "FAIL" and measured_only.loc[0, "verdict"] == "MEASURED"
    assert measured_only.loc[0, "ours_mean"] == pytest.approx(0.301) and np.isnan(measured_only.loc[0, "paper_value"])
    text = markdown(pd.concat([tested, measured_only], ignore_index=True), "a study", "snakemake x", SOURCES)
    assert ("1 claim of the source. Registered, confirmatory: 0 pass, 1 fail, 0 inconclusive. Measured with no verdict (the source "
            "gives no number to test): 1.") in text
    assert f"`fig3_linear_alpha_beta`: ours 0.301; {why}" in text



def test_an_earlier_reading_superseded_by_the_claim_as_the_source_states_it_is_kept_and_counted_apart():
    registered = {"defined_in": "abc1234", "built_from": "def5678 (clean)", "registered": True, "registration": "registered"}
    rows = _fig3_rows([0.30, 0.302, 0.301])  # fails the test: the earlier reading's verdict stays in the ledger
    spec = _spec(case="linear", model="linear", superseded_by="fig3_linear_alpha_beta_as_stated")
    table = ledger(ONELAYER, {"fig3": rows}, {"fig3_linear_alpha_beta": spec}, {"fig3_linear_alpha_beta": registered})
    assert table.loc[0, "verdict"] == "FAIL" and table.loc[0, "superseded_by"] == "fig3_linear_alpha_beta_as_stated"
    text = markdown(table, "a study", "snakemake x", SOURCES)
    assert ("0 claims of the source. Our earlier readings of the source, superseded by a claim as the source states it: "
            "0 pass, 1 fail, 0 inconclusive.") in text
    assert "**FAIL** (our earlier reading, superseded by `fig3_linear_alpha_beta_as_stated`)" in text
    assert "- **Not reproduced**" not in text and "superseded by `fig3_linear_alpha_beta_as_stated`" in text.split("## What we")[1]
    problems = reference_problems(ONELAYER, {"fig3_linear_alpha_beta": spec}, {"fig3": {"cases": ["linear"], "models": ["linear"]}},
                                  "onelayer.claims")
    assert any("superseded_by: 'fig3_linear_alpha_beta_as_stated' is not another configured claim" in p for p in problems)
