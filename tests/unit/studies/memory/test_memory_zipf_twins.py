"""The confirmatory twins of the Zipf d-exponent claims marked exploratory: each is its original (statement, measure,
rules) reading the Zipf tables of fresh draws (zipf_confirmatory, zipf_confirmatory_fit), and each original still
reads only the first draws' tables (zipf, zipf_fit)."""

import pandas as pd
import pytest

from icdenoise.records.claims import ledger
from icdenoise.records.ledger_text import headline
from icdenoise.studies.memory.claims import CLAIMS, ZIPF_TWINS

CLAIM_FITS = {"zipf_counts_d_exponent": ("counts", "error"), "zipf_threshold_d_exponent": ("threshold", "error"),
              "zipf_optimum_d_exponent": ("top_k", "error"), "zipf_optimum_best_k_exponent": ("top_k", "best_k")}
FITS = list(CLAIM_FITS.values())


def _fits(slope: dict[tuple[str, str], float], d_range_slope: float | None = None) -> pd.DataFrame:
    """zipf_fit rows at α = 1.5 and 2 for each (estimator, quantity): against d (x_min 64) with a narrow interval
    around `slope`, and against d_range (x_min 256) with `d_range_slope` (the same slope when None)."""
    rows = []
    for alpha in (1.5, 2.0):
        for (estimator, quantity), value in slope.items():
            for against, x_min, fitted in (("d", 64.0, value), ("d_range", 256.0, value if d_range_slope is None else d_range_slope)):
                rows.append({"alpha": alpha, "vocabulary": 32768, "estimator": estimator, "quantity": quantity, "against": against,
                             "x_min": x_min, "slope": fitted, "ci_low": fitted - 0.01, "ci_high": fitted + 0.01})
    return pd.DataFrame(rows)


def _specs(repo) -> dict[str, dict]:
    from icdenoise.pipeline.config import load_yaml

    claims = load_yaml(repo / "config" / "config.yaml")["memory"]["claims"]
    return {claim_id: claims[claim_id] for twin, original in ZIPF_TWINS.items() for claim_id in (twin, original)}


def test_each_twin_reads_the_fresh_draws_and_each_original_the_first(repo):
    specs = _specs(repo)
    # each claim's bound at its own α: pass on the first draws' fits, far off on the fresh draws'
    paper = {original: specs[original]["paper_value"] for original in ZIPF_TWINS.values()}
    first = _fits({fit: 0.0 for fit in FITS})
    for original, value in paper.items():
        name, suffix = original.rsplit("_a", 1)
        estimator, quantity = CLAIM_FITS[name]
        rows = (first["alpha"] == {"15": 1.5, "20": 2.0}[suffix]) & (first["estimator"] == estimator) & (first["quantity"] == quantity)
        first.loc[rows, ["slope", "ci_low", "ci_high"]] = [value, value - 0.01, value + 0.01]
    fresh = first.assign(slope=first["slope"] + 5.0, ci_low=first["ci_low"] + 5.0, ci_high=first["ci_high"] + 5.0)
    frames = {"zipf_fit": first, "zipf_confirmatory_fit": fresh}
    table = ledger(CLAIMS, frames, specs).set_index("claim")
    for twin, original in ZIPF_TWINS.items():
        assert table.loc[original, "verdict"] == "PASS", original
        assert table.loc[twin, "verdict"] == "FAIL", twin
        assert table.loc[twin, "ours_mean"] == table.loc[original, "ours_mean"] + 5.0
        assert table.loc[twin, "statement"] == table.loc[original, "statement"]
        assert set(CLAIMS[twin].rules) == set(CLAIMS[original].rules) == {"range_dependent"}
    alone = ledger({original: CLAIMS[original] for original in ZIPF_TWINS.values()}, {"zipf_fit": first}, specs).set_index("claim")
    assert (alone["ours_mean"] == table.loc[alone.index, "ours_mean"]).all()
    # registered, the twins count as confirmatory, and each original once, as its twin; a twin implied by another
    # claim (zipf_optimum_d_exponent_a20's, by zipf_threshold_d_exponent_a20's) is counted there, with its original
    implied = [twin for twin in ZIPF_TWINS if "implied_by" in specs[twin]]
    assert implied == ["zipf_optimum_d_exponent_a20_confirmatory"]
    text = headline(table.reset_index().assign(registered=True))
    counted = len(ZIPF_TWINS) - len(implied)
    assert f"Registered, confirmatory: 0 pass, {counted} fail, 0 inconclusive." in text
    assert f"Repeated by a confirmatory twin and counted as the twin: {counted} pass, 0 fail, 0 inconclusive." in text
    assert "Implied by another claim and counted there: 2." in text


def test_a_twins_range_rule_reads_the_fresh_fits(repo):
    specs = _specs(repo)
    twin = "zipf_threshold_d_exponent_a15_confirmatory"
    value = specs[twin]["paper_value"]
    steady = _fits({fit: value for fit in FITS})
    moving = _fits({fit: value for fit in FITS}, d_range_slope=value + 1.0)
    run = lambda first, fresh: ledger({name: CLAIMS[name] for name in (twin, ZIPF_TWINS[twin])}, {"zipf_fit": first, "zipf_confirmatory_fit": fresh},
                                      specs).set_index("claim")
    table = run(steady, moving)
    assert table.loc[ZIPF_TWINS[twin], "verdict"] == "PASS"
    assert table.loc[twin, "verdict"] == "INCONCLUSIVE" and "d range" in table.loc[twin, "why_inconclusive"]
    table = run(moving, steady)
    assert table.loc[twin, "verdict"] == "PASS" and table.loc[ZIPF_TWINS[twin], "verdict"] == "INCONCLUSIVE"


def test_a_twin_never_falls_back_on_the_first_draws(repo):
    specs = _specs(repo)
    twin = "zipf_counts_d_exponent_a15_confirmatory"
    with pytest.raises(KeyError, match="zipf_fit"):
        CLAIMS[twin].measure({"zipf_fit": _fits({fit: 0.0 for fit in FITS})}, specs[twin])
