"""Figure-table helpers against independent computations: Fig. 4(a)'s power-law fit, Fig. 4(b)'s
theory line, and the round trip of weights through their long Parquet format."""

import numpy as np
import pandas as pd
import pytest
import torch

from icdenoise.figures.fig4a import power_law_fit
from icdenoise.models import LinearAttention
from icdenoise.training import ensemble_from_frame, weights_frame
from icdenoise.transfer import subspace_shift_references, subspace_shift_table


def test_power_law_fit_recovers_a_known_exponent():
    lengths = np.array([20, 40, 80, 160, 320])
    table = pd.DataFrame({"L": np.repeat(lengths, 2), "excess_mse": np.repeat(3.0 * lengths**-0.7, 2)})
    fit = power_law_fit(table).iloc[0]
    assert fit["slope"] == pytest.approx(-0.7) and np.exp(fit["intercept"]) == pytest.approx(3.0)
    assert fit["r_squared"] == pytest.approx(1.0) and fit["n_lengths_used"] == 5


def test_weights_survive_the_long_format():
    w_kq, w_pv = torch.randn(3, 4, 4, dtype=torch.float64), torch.randn(3, 4, 4, dtype=torch.float64)
    frame = weights_frame(LinearAttention(w_kq, w_pv), [7, 8, 9], "final")
    seeds, model = ensemble_from_frame(frame, "linear", "final")
    assert seeds == [7, 8, 9]
    torch.testing.assert_close(model.w_kq, w_kq)
    torch.testing.assert_close(model.w_pv, w_pv)


def test_ideal_weights_reach_the_theory_line_for_every_subspace_dimension():
    """With W_PV = I, W_KQ = I/(σ0²+σ_z²) and a long context, y = MSE·n/d' → σ0²σ_z²/(σ0²+σ_z²) for any d'."""
    block = {"n": 6, "d": 3, "sigma0_sq": 2.0, "sigma_z_sq": 1.0}
    eye = torch.eye(6, dtype=torch.float64)[None]
    frames = [weights_frame(LinearAttention(eye / 3.0, eye), [0], stage) for stage in ("initial", "final")]
    table = subspace_shift_table(pd.concat(frames), "linear", block, [1, 5], [3000], n_prompts=3000, seed=5)
    theory = subspace_shift_references(block)["bayes"]
    assert theory == pytest.approx(2 / 3)
    for value in table.loc[table["stage"] == "final", "loss_per_dim"]:
        assert value == pytest.approx(theory, rel=0.05)
