"""A sweep's figure draws a point whose training diverged as a cross with its step, never as a gap, and never
averages the rest of its spread values as if it were not there."""

import numpy as np
import pandas as pd

from icdenoise.experiments.plots.sweep import _summary, render  # records.figures selects Agg


def table(statuses):
    """A one-model sweep over training.lr at three values, two seeds each; `statuses` per lr."""
    rows = []
    for lr, status in zip((0.01, 0.1, 10.0), statuses):
        for seed in (0, 1):
            trained = status == "trained"
            rows.append(dict(sweep="lr", base="gmm", case=f"gmm.lr{lr}", **{"training.lr": lr}, model="softmax", seed=seed,
                             status=status, mse=0.3 + seed * 0.01 if trained else np.nan, sem=0.01, bayes_mse=0.02,
                             ratio_to_bayes=15.0 if trained else np.nan, alpha=0.2 if trained else np.nan,
                             beta=1.0 if trained else np.nan, gamma=0.2 if trained else np.nan, beta_theory=10.0,
                             gamma_theory=np.nan, divergence_step=pd.NA if trained else 4,
                             divergence_loss=np.nan if trained else 66.5))
    return pd.DataFrame(rows).astype({"divergence_step": "Int64"})


def test_a_diverged_point_is_a_cross_in_every_panel_with_its_step_in_the_first():
    figure = render({"sweep": table(["trained", "trained", "diverged"])}, "lr", ["training.lr"])
    for index, ax in enumerate(figure.axes):
        crosses = [line for line in ax.get_lines() if line.get_marker() == "x"]
        assert [line.get_xdata()[0] for line in crosses] == [10.0], index
        notes = [text.get_text() for text in ax.texts]
        assert notes == (["diverged\nstep 4"] if index == 0 else []), index
    assert "× : training diverged" in figure._suptitle.get_text()


def test_a_sweep_with_nothing_trained_draws_its_first_row():
    figure = render({"sweep": table(["diverged"] * 3)}, "lr", ["training.lr"])
    assert len(figure.axes) == 1 and len([line for line in figure.axes[0].get_lines() if line.get_marker() == "x"]) == 3


def test_a_spread_mean_with_a_diverged_member_is_missing_not_the_mean_of_the_rest():
    rows = pd.DataFrame({"x": [1, 1, 1, 1, 2, 2], "dataset.seed": [0, 0, 1, 1, 0, 1], "mse": [1.0, 1.0, np.nan, np.nan, 2.0, 3.0]})
    summary = _summary(rows, "mse", "dataset.seed")
    assert np.isnan(summary.loc[1, "mean"]) and summary.loc[2, "mean"] == 2.5
