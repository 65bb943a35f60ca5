"""The scaffold's template study, `starter` (src/icdenoise/scaffold/starter): its closed form MSE/n = σ_z² against a
direct Monte-Carlo computation on the core's own prompts, and its claim's interval."""

import numpy as np
import pandas as pd
import pytest

from icdenoise.maths.cases import make_case
from icdenoise.scaffold.starter.claims import mse_over_noise_variance
from icdenoise.scaffold.starter.noisy_query import NoisyQuery, leaderboard_denoisers, noisy_query_table

BLOCK = {"task": "linear", "n": 8, "d": 3, "sigma0_sq": 2.0, "L": 10, "corruption": {"kind": "query", "sigma_z_sq": 0.5}}


def test_the_noisy_query_is_the_query_and_its_error_is_the_noise():
    prompts = make_case(BLOCK).sample(20000, 2, seed=3)
    estimate = NoisyQuery().predict(prompts)[0]
    assert np.array_equal(estimate, prompts.query)
    squared = ((estimate - prompts.target) ** 2).mean(axis=1)  # ‖z‖²/n per prompt: σ_z² χ²_n / n
    standard_error = squared.std(ddof=1) / np.sqrt(len(squared))
    assert abs(squared.mean() - 0.5) < 4 * standard_error and standard_error < 0.005


def test_the_table_divides_each_cases_mse_by_its_noise_variance():
    cases = {"a": BLOCK, "b": {**BLOCK, "corruption": {"kind": "query", "sigma_z_sq": 0.25}}}
    table = noisy_query_table(cases, 4000, 0, 1000)
    assert list(table["case"]) == ["a", "b"] and list(table["sigma_z_sq"]) == [0.5, 0.25]
    assert np.allclose(table["ratio"], table["mse"] / table["sigma_z_sq"])
    assert (abs(table["ratio"] - 1) < 4 * table["sem"] / table["sigma_z_sq"]).all()
    assert set(leaderboard_denoisers(BLOCK)) == {"starter_noisy_query"}


def test_its_claims_interval_treats_cases_sharing_noise_draws_as_one_draw():
    table = pd.DataFrame({"ratio": [1.01, 1.01], "sem": [0.002, 0.004], "sigma_z_sq": [0.1, 0.1]})
    measurement = mse_over_noise_variance({"noisy_query": table}, {})
    half = 1.959964 * 0.03  # the mean of sem / σ_z²: the cases' errors taken as fully correlated
    assert measurement.interval == pytest.approx((1.01 - half, 1.01 + half), rel=1e-6)
