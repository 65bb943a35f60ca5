"""The claims ledger's verdicts, with a passing and a failing claim."""

import pandas as pd
import pytest

from icdenoise.claims import CLAIMS, ledger, markdown, verdict


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


def _fig3_rows(alpha_beta):
    return pd.DataFrame({"case": "linear", "model": "linear", "seed": range(len(alpha_beta)), "alpha_beta": alpha_beta})


def test_ledger_passes_and_fails_a_claim_on_its_mean_and_reports_the_range():
    spec = {"paper_value": 0.327, "comparison": "within_absolute", "tolerance": 0.01, "tolerance_reason": "seed spread"}
    config = {"claims": {"fig3_linear_alpha_beta": spec}}
    passing = ledger({"fig3": _fig3_rows([0.328, 0.330])}, config)
    failing = ledger({"fig3": _fig3_rows([0.30, 0.31])}, config)
    assert passing.loc[0, "passed"] and not failing.loc[0, "passed"]
    assert (failing.loc[0, "ours_min"], failing.loc[0, "ours_max"], failing.loc[0, "n_values"]) == (0.30, 0.31, 2)
    assert failing.loc[0, "ours_mean"] == pytest.approx(0.305)
    text = markdown(pd.concat([passing, failing], ignore_index=True))
    assert "1 of 2 claims reproduce" in text and "**FAIL**" in text and "PASS" in text


def test_missing_table_rows_are_an_error_not_a_pass():
    config = {"claims": {"fig3_linear_alpha_beta": {"paper_value": 0.327, "comparison": "within_absolute",
                                                     "tolerance": 0.01, "tolerance_reason": "x"}}}
    with pytest.raises(KeyError, match="linear"):
        ledger({"fig3": _fig3_rows([]).iloc[0:0]}, config)


def test_every_claim_states_where_and_what():
    for claim in CLAIMS.values():
        assert claim.location and claim.statement
