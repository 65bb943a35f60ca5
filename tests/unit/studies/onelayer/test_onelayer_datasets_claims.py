"""The *_datasets claims (docs/onelayer.md): Fig. 3's statements over several datasets, read from the study's sweep
`datasets`. Per dataset the mean over its initialisations, the interval a t-interval over the datasets' means (the
initialisations of one dataset share its noise), and a diverged training an inconclusive row, never a number."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from icdenoise.records.claims import ledger
from icdenoise.studies.onelayer.claims import CLAIMS

GAMMA = {11: [0.33, 0.32, 0.34], 12: [0.30, 0.31, 0.32], 13: [0.35, 0.33, 0.34]}  # dataset → per initialisation


def sweep(status="trained"):
    rows = [{"base": "linear", "model": "linear", "dataset.seed": dataset, "seed": seed, "status": status if (dataset, seed) == (12, 7) else "trained",
             "gamma": value, "alpha": 1.0, "beta": value, "ratio_to_bayes": 1.0}
            for dataset, values in GAMMA.items() for seed, value in zip((6, 7, 8), values)]
    rows += [{**row, "model": "softmax", "alpha": -1.5, "beta": -0.2, "status": "trained"} for row in rows]
    return pd.DataFrame(rows)


SPEC = {"case": "linear", "model": "linear", "paper_value": 0.327, "comparison": "within_absolute", "tolerance": 0.01,
        "inconclusive": ["interval", "diverged"], "tolerance_reason": "set by hand for the test"}


def test_the_value_is_each_datasets_mean_and_the_interval_runs_over_datasets():
    measurement = CLAIMS["fig3_linear_alpha_beta_datasets"].measure({"datasets": sweep()}, SPEC)
    means = np.array([np.mean(values) for values in GAMMA.values()])
    assert measurement.values == pytest.approx(means)
    half = stats.t.ppf(0.975, 2) * means.std(ddof=1) / np.sqrt(3)
    assert measurement.interval == pytest.approx((means.mean() - half, means.mean() + half))
    assert "3 datasets' means of 3 initialisations" in measurement.method


def test_up_to_sign_claims_read_the_absolute_scale():
    spec = {**SPEC, "model": "softmax"}
    measurement = CLAIMS["fig3_linear_softmax_beta_datasets"].measure({"datasets": sweep()}, spec)
    assert measurement.values == pytest.approx([0.2, 0.2, 0.2])


def test_a_diverged_training_makes_the_claim_inconclusive_naming_it():
    table = sweep(status="diverged")
    table.loc[table["status"] == "diverged", "gamma"] = np.nan
    row = ledger({"c": CLAIMS["fig3_linear_alpha_beta_datasets"]}, {"datasets": table}, {"c": SPEC}).iloc[0]
    assert np.isnan(CLAIMS["fig3_linear_alpha_beta_datasets"].measure({"datasets": table}, SPEC).values[1])
    assert row["verdict"] == "INCONCLUSIVE"
    assert "training diverged at dataset 12 seed 7" in row["why_inconclusive"]
