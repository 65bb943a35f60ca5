"""Figure 4(a): linear attention on the linear case as the training context length L grows.

`sweep_table` gives one row per (L, seed): γ = α·β, the best and final test MSE/n, and the Bayes
posterior mean scored on the same test prompts, so that the excess over Bayes is a paired
difference with the test set's sampling noise cancelled. `power_law_fit` fits
log(excess) = c + slope · log L (Appendix E expects the loss to fall as a power of L).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from matplotlib.ticker import LogLocator, NullFormatter, ScalarFormatter

from .fig3 import diagonal_means
from .style import BAYES_COLOR, MODEL_STYLE, PLUGIN_COLOR, start_figure


def sweep_table(weights: pd.DataFrame, losses: pd.DataFrame, test_oracle: pd.DataFrame) -> pd.DataFrame:
    """weights/losses: the training artifacts of every L; test_oracle: columns L, oracle_test_mse."""
    final = diagonal_means(weights[weights["stage"] == "final"])[["L", "seed", "alpha", "beta"]]
    test = losses[losses["split"] == "test"]
    best = test.groupby(["L", "seed"])["mse"].min().rename("best_test_mse")
    final_test = test[test["step"] == test.groupby("L")["step"].transform("max")].set_index(["L", "seed"])["mse"]
    table = final.merge(best.reset_index(), on=["L", "seed"]).merge(
        final_test.rename("final_test_mse").reset_index(), on=["L", "seed"]
    )
    table["gamma"] = table["alpha"] * table["beta"]
    table = table.merge(test_oracle, on="L", validate="many_to_one")
    table["excess_mse"] = table["best_test_mse"] - table["oracle_test_mse"]
    return table.sort_values(["L", "seed"]).reset_index(drop=True)


def power_law_fit(table: pd.DataFrame) -> pd.DataFrame:
    """Least squares on log(mean excess over seeds) against log L, over the L with positive excess."""
    excess = table.groupby("L")["excess_mse"].mean()
    used = excess[excess > 0]
    slope, intercept = np.polyfit(np.log(used.index.to_numpy(float)), np.log(used.to_numpy()), 1)
    residual = np.log(used.to_numpy()) - (intercept + slope * np.log(used.index.to_numpy(float)))
    total = np.log(used.to_numpy()) - np.log(used.to_numpy()).mean()
    return pd.DataFrame([{
        "slope": slope, "intercept": intercept, "r_squared": 1 - residual @ residual / (total @ total),
        "n_lengths_used": len(used), "n_lengths": len(excess),
    }])


def render(table: pd.DataFrame, baselines: pd.DataFrame, fit: pd.DataFrame, gamma_star: float):
    """Top: γ against L with γ*. Middle: best test MSE/n with the Bayes and eq. 10 lines.
    Bottom: log–log excess over Bayes with the fitted power law."""
    figure, (top, middle, bottom) = start_figure(3, 1, figsize=(5.5, 9), sharex=False)
    by_length = table.groupby("L")
    style = MODEL_STYLE["linear"]
    for ax, column in ((top, "gamma"), (middle, "best_test_mse")):
        summary = by_length[column].agg(["mean", "min", "max"])
        ax.fill_between(summary.index, summary["min"], summary["max"], color=style["color"], alpha=0.2, linewidth=0)
        ax.plot(summary.index, summary["mean"], marker=style["marker"], color=style["color"],
                label=f"linear attention (mean, min–max over {table['seed'].nunique()} seeds; one dataset per L)")
    top.axhline(gamma_star, color=BAYES_COLOR, label=f"γ* = 1/(σ0²+σ_z²) = {gamma_star:.3f}")
    top.set_ylim(top=max(gamma_star, table["gamma"].max()) * 1.03)
    top.set_ylabel("γ = α·β")
    oracle = baselines[baselines["estimator"] == "oracle"].sort_values("L")
    plugin = baselines[baselines["estimator"] == "empirical_covariance"].sort_values("L")
    middle.plot(oracle["L"], oracle["expected"], color=BAYES_COLOR, label="Bayes optimum (eq. 4)")
    middle.plot(plugin["L"], plugin["mse"], color=PLUGIN_COLOR, linestyle="--", label="plug-in σ0²/(σ0²+σ_z²) P̂ x̃ (eq. 10)")
    middle.set_ylabel("best test MSE / n")
    excess = by_length["excess_mse"].mean()
    positive = excess[excess > 0]
    bottom.loglog(positive.index, positive, marker=style["marker"], linestyle="none", color=style["color"],
                  label="best test − Bayes on the same test prompts")
    row = fit.iloc[0]
    lengths = np.geomspace(excess.index.min(), excess.index.max(), 50)
    bottom.loglog(lengths, np.exp(row["intercept"]) * lengths ** row["slope"], color="black",
                  label=f"fit: slope {row['slope']:.2f} (R² {row['r_squared']:.2f})")
    bottom.set_ylabel("excess MSE / n")
    for axis in (bottom.xaxis, bottom.yaxis):
        axis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
        axis.set_major_formatter(ScalarFormatter())
        axis.set_minor_formatter(NullFormatter())
    for ax in (top, middle, bottom):
        ax.set_xlabel("training context length L")
        ax.legend(fontsize=7)
    figure.suptitle("Figure 4(a) — linear attention approaches\nthe Bayes optimum as L grows", fontsize=10)
    figure.tight_layout()
    return figure
