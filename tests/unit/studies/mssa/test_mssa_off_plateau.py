"""fig6_mssa_learns_linear_in_context_off_plateau (docs/claims_as_stated.md): the comparisons' rule `plateau` applied to
MSSA itself, so that a model that never left the zero predictor's plateau leaves "can in-context learn" undecided
rather than failed; and theorem31_rate_first_layers counted with theorem31_rate_every_layer, of which it is a
sub-case. Each against hand-built tables."""

import numpy as np
import pandas as pd
import pytest
import yaml

from icdenoise.records.claims import ledger
from icdenoise.records.ledger_text import headline, source_claims
from icdenoise.studies.mssa.claims import CLAIMS

NEW, OLD = "fig6_mssa_learns_linear_in_context_off_plateau", "fig6_mssa_learns_linear_in_context"


def regression(final_errors: list[float], task: str = "linear") -> dict:
    """Fig. 6's error table: MSSA's normalized error falling from 1 to `final_errors[seed]` over 16 examples (d = 8),
    a transformer that learns, and a baseline row (seed −1); the sparse task's MSSA stays at 1 (the measure must read
    the linear task only)."""
    rows = []
    for seed, final in enumerate(final_errors):
        for examples in range(16):
            rows.append({"task": task, "model": "mssa", "seed": seed, "examples": examples, "d": 8,
                         "normalized_mse": 1 + (final - 1) * examples / 15})
            rows.append({"task": task, "model": "transformer", "seed": seed, "examples": examples, "d": 8,
                         "normalized_mse": 1 - 0.95 * examples / 15})
            rows.append({"task": "sparse", "model": "mssa", "seed": seed, "examples": examples, "d": 8, "normalized_mse": 1.0})
    rows += [{"task": task, "model": "least_squares", "seed": -1, "examples": examples, "d": 8,
              "normalized_mse": max(0.0, 1 - examples / 8)} for examples in range(16)]
    return {"regression": pd.DataFrame(rows)}


@pytest.fixture(scope="module")
def config(repo):
    return yaml.safe_load((repo / "config" / "config.yaml").read_text())["mssa"]["claims"]


def verdicts(frames: dict, config: dict) -> pd.DataFrame:
    return ledger(CLAIMS, frames, {claim: config[claim] for claim in (OLD, NEW)}).set_index("claim")


def test_a_model_that_never_left_the_plateau_is_undecided_where_the_old_reading_failed(config):
    table = verdicts(regression([0.972, 0.975, 0.973, 0.974]), config)
    assert table.loc[OLD, "verdict"] == "FAIL"
    assert table.loc[NEW, "verdict"] == "INCONCLUSIVE"
    assert "plateau: the mssa's own normalized error at the most examples is 0.974 ≥ 0.9" in table.loc[NEW, "why_inconclusive"]
    np.testing.assert_allclose(CLAIMS[NEW].measure(regression([0.972, 0.975]), config[NEW]), [0.972, 0.975])


def test_a_model_that_learned_passes_and_one_that_left_the_plateau_but_not_far_enough_fails(config):
    learned = verdicts(regression([0.05, 0.08, 0.06, 0.07]), config)
    assert learned.loc[[OLD, NEW], "verdict"].tolist() == ["PASS", "PASS"]
    halfway = verdicts(regression([0.5, 0.55, 0.52, 0.53]), config)
    assert halfway.loc[[OLD, NEW], "verdict"].tolist() == ["FAIL", "FAIL"]
    assert halfway.loc[NEW, "why_inconclusive"] == ""


def test_the_rule_reads_the_mean_over_seeds_at_the_most_examples(config):
    # one seed learned, one did not: the mean 0.6 is below the plateau level, so the rule does not fire
    table = verdicts(regression([0.25, 0.95]), config)
    assert "plateau" not in table.loc[NEW, "why_inconclusive"]


def test_the_new_reading_keeps_the_old_bound_and_supersedes_it(config):
    assert config[OLD]["superseded_by"] == NEW and "exploratory" in config[NEW]
    for key in ("regression_task", "architecture", "paper_value", "comparison", "tolerance"):
        assert config[NEW][key] == config[OLD][key], key
    assert config[NEW]["inconclusive"] == ["interval", "plateau"]
    # the level of the comparisons' rule, applied to the model itself
    assert config[NEW]["plateau"] == config["fig6_linear_mssa_close_to_transformer"]["plateau"]


def snr(every_layer_off: bool) -> pd.DataFrame:
    """Thresholded φ at δ = 0.2, two seeds, 6 layers: the ratio exactly 1 + ητ over the first three layers, and off by 10%
    at layer 5 where `every_layer_off`."""
    gain = 1.06
    rows = []
    for seed in (0, 1):
        for layer in range(1, 6):
            ratio = gain * (1.1 if every_layer_off and layer == 5 else 1.0)
            rows.append({"delta": 0.2, "phi": "thresholded", "seed": seed, "layer": layer, "ratio": ratio, "theory_gain": gain})
    return pd.DataFrame(rows)


def test_the_rate_over_the_first_layers_is_counted_with_the_rate_at_every_layer(config):
    claims = ("theorem31_rate_first_layers", "theorem31_rate_every_layer")
    assert config["theorem31_rate_first_layers"]["implied_by"] == "theorem31_rate_every_layer"
    table = ledger(CLAIMS, {"snr": snr(every_layer_off=True)}, {claim: config[claim] for claim in claims})
    assert table.set_index("claim")["verdict"].to_dict() == {claims[0]: "PASS", claims[1]: "FAIL"}
    assert source_claims(table).tolist() == [False, True]  # one statement of the source, Theorem 3.1's eq. 8
    text = headline(table.assign(registered=True))
    assert text.startswith("1 claim of the source. Registered, confirmatory: 0 pass, 1 fail, 0 inconclusive.")
    assert "Implied by another claim and counted there: 1." in text
