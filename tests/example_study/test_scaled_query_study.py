"""The example study's closed form against Monte-Carlo on the core's own prompts."""

import numpy as np
import pytest
from scaled_query_study.shrinkage import ScaledQuery, expected_mse, optimal_scale

from icdenoise.maths.cases import make_case

BLOCK = {"task": "linear", "n": 8, "d": 3, "sigma0_sq": 2.0, "corruption": {"kind": "query", "sigma_z_sq": 0.5}}


@pytest.mark.parametrize("scale", [0.0, 0.3, 0.6, 1.0])
def test_the_closed_form_matches_monte_carlo(scale):
    prompts = make_case(BLOCK).sample(20000, 2, seed=3)
    estimate = ScaledQuery(scale).predict(prompts)[0]
    mse = np.mean((estimate - prompts.target) ** 2)
    expected = expected_mse(scale, BLOCK["d"] * BLOCK["sigma0_sq"], BLOCK["n"], BLOCK["corruption"]["sigma_z_sq"])
    assert mse == pytest.approx(expected, rel=0.03)


def test_the_optimal_scale_minimises_the_closed_form():
    moment, n, noise = 6.0, 8, 0.5
    best = optimal_scale(moment, n, noise)
    grid = np.linspace(0, 1, 1001)
    assert grid[np.argmin([expected_mse(scale, moment, n, noise) for scale in grid])] == pytest.approx(best, abs=1e-3)
