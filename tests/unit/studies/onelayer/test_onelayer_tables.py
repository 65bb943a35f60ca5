"""The onelayer study's tables against independent computations: Fig. 4(a)'s power-law fit, Fig. 4(b)'s
theory line, Fig. 5's descent scores."""

import numpy as np
import pandas as pd
import pytest
import torch

from icdenoise.maths.cases import make_case
from icdenoise.maths.models import LinearAttention
from icdenoise.studies.onelayer.context_sweep import power_law_fit
from icdenoise.studies.onelayer.descent import step_count_table
from icdenoise.studies.onelayer.energy import descent_path
from icdenoise.studies.onelayer.subspace_shift import subspace_shift_table


def test_power_law_fit_recovers_a_known_exponent():
    lengths = np.array([20, 40, 80, 160, 320])
    table = pd.DataFrame({"L": np.repeat(lengths, 2), "excess_mse": np.repeat(3.0 * lengths**-0.7, 2)})
    fit = power_law_fit(table).iloc[0]
    assert fit["slope"] == pytest.approx(-0.7) and np.exp(fit["intercept"]) == pytest.approx(3.0)
    assert fit["r_squared"] == pytest.approx(1.0) and fit["n_lengths_used"] == 5


def test_power_law_fit_refuses_fewer_than_two_usable_lengths():
    table = pd.DataFrame({"L": [10, 20], "excess_mse": [0.1, -0.01]})
    with pytest.raises(ValueError, match="at least 2"):
        power_law_fit(table)


def test_ideal_weights_reach_the_theory_line_for_every_subspace_dimension():
    """With W_PV = I, W_KQ = I/(σ0²+σ_z²) and a long context, y = MSE·n/d' → σ0²σ_z²/(σ0²+σ_z²) for any d'."""
    block = {"task": "linear", "n": 6, "d": 3, "sigma0_sq": 2.0, "corruption": {"kind": "query", "sigma_z_sq": 1.0}}
    eye = torch.eye(6, dtype=torch.float64)[None]
    frames = [LinearAttention.from_weights(eye / 3.0, eye).to_frame([0], stage) for stage in ("initial", "final")]
    table = subspace_shift_table(pd.concat(frames), "linear", block, [1, 5], [3000], n_prompts=3000, seed=5)
    assert table["bayes_loss_per_dim"].iloc[0] == pytest.approx(2 / 3) and (table["training_d"] == 3).all()
    for value in table.loc[table["stage"] == "final", "loss_per_dim"]:
        assert value == pytest.approx(2 / 3, rel=0.05)


def test_step_count_table_scores_the_descent_path_directly():
    block = {"task": "sphere", "n": 2, "d": 1, "radius": 1.0, "corruption": {"kind": "query", "sigma_z_sq": 0.1}, "L": 20}
    fig5 = {"alpha": 1.0, "step_counts": [0, 1, 3], "n_queries": 50, "query_seed": 4}
    table = step_count_table(block, fig5)
    prompts = make_case(block).sample(50, 20, 4)
    path = descent_path(prompts.context, prompts.query, 1.0, 10.0, 1.0, 3)
    for steps in (0, 1, 3):
        row = table[(table["estimator"] == "descent") & (table["steps"] == steps)].iloc[0]
        assert row["mse"] == pytest.approx(np.mean((path[steps] - prompts.target) ** 2), rel=1e-12)
    assert list(table["estimator"]) == ["descent"] * 3 + ["bayes"] and (table["n_queries"] == 50).all()
