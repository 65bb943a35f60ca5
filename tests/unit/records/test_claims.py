"""The claims machinery's verdicts, a passing and a failing claim, and names read from the config."""

import numpy as np
import pandas as pd
import pytest

from icdenoise.pipeline.config import load_yaml, validate_config
from icdenoise.records.claims import Claim, ledger, markdown, reference_problems, verdict
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
    return {"paper_value": 0.327, "comparison": "within_absolute", "tolerance": 0.01, "tolerance_reason": "seed spread", **names}


def test_ledger_passes_and_fails_a_claim_on_its_mean_and_reports_the_range():
    config = {"fig3_linear_alpha_beta": _spec(case="linear", model="linear")}
    passing = ledger(ONELAYER, {"fig3": _fig3_rows([0.328, 0.330])}, config)
    failing = ledger(ONELAYER, {"fig3": _fig3_rows([0.30, 0.31])}, config)
    assert passing.loc[0, "passed"] and not failing.loc[0, "passed"]
    assert (failing.loc[0, "ours_min"], failing.loc[0, "ours_max"], failing.loc[0, "n_values"]) == (0.30, 0.31, 2)
    assert failing.loc[0, "ours_mean"] == pytest.approx(0.305)
    sources = {"run": "paper", "files": [{"file": "config/config.yaml", "sha256": "ab" * 32}], "merged_sha256": "cd" * 32}
    text = markdown(pd.concat([passing, failing], ignore_index=True), "a study", "snakemake x", sources)
    assert "1 of 2 claims reproduce" in text and "**FAIL**" in text and "PASS" in text and "# Claims ledger: a study" in text
    assert "Run `paper`. Config: `config/config.yaml` (sha256 abababababab); merged config sha256 cdcdcdcdcdcd." in text


def test_the_case_comes_from_the_claims_config_not_from_code():
    rows = pd.concat([_fig3_rows([0.9, 0.9], case="linear"), _fig3_rows([0.33, 0.33], case="renamed")])
    table = ledger(ONELAYER, {"fig3": rows}, {"fig3_linear_alpha_beta": _spec(case="renamed", model="linear")})
    assert table.loc[0, "ours_mean"] == pytest.approx(0.33) and table.loc[0, "passed"]


def test_missing_table_rows_are_an_error_not_a_pass():
    with pytest.raises(KeyError, match="linear"):
        ledger(ONELAYER, {"fig3": _fig3_rows([]).iloc[0:0]}, {"fig3_linear_alpha_beta": _spec(case="linear", model="linear")})


def test_a_non_finite_measurement_is_an_error_not_a_verdict():
    registry = {"nan_claim": Claim("here", "it holds", lambda frames, spec: np.array([np.nan]))}
    with pytest.raises(ValueError, match="nan_claim"):
        ledger(registry, {}, {"nan_claim": _spec()})


def test_claim_names_are_checked_against_the_study_block():
    registry = {"c": Claim("here", "it holds", lambda frames, spec: np.array([1.0]), (("case", "fig3"), ("model", "fig3")))}
    study = {"fig3": {"cases": ["linear"], "models": ["softmax"]}}
    problems = reference_problems(registry, {"c": _spec(case="gmm")}, study, "s.claims")
    assert problems == ["s.claims.c.case: 'gmm' is not in fig3.cases (allowed: linear)",
                        "s.claims.c.model: missing (the claim reads its model from the config)"]


def test_every_claim_states_where_and_what(repo):
    for study in validate_config(load_yaml(repo / "config" / "config.yaml"), repo / "workflow" / "schemas").values():
        for claim in study.claims.values():
            assert claim.location and claim.statement
