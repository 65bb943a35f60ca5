"""Figure 4(a): γ = α·β, the best test MSE and the excess over Bayes against the training context
length L, from `context_sweep`'s tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.ticker import LogLocator, NullFormatter, ScalarFormatter

from icdenoise.records.figures import BAYES_COLOR, PLUGIN_COLOR, model_style, start_figure


def render(tables: dict[str, pd.DataFrame]):
    """From tables sweep, baselines and fit. Top: γ against L with γ*. Middle: best test MSE/n with the
    Bayes and eq. 10 lines. Bottom: log–log excess over Bayes with the fitted power law."""
    table, baselines, fit = tables["sweep"], tables["baselines"], tables["fit"]
    figure, (top, middle, bottom) = start_figure(3, 1, figsize=(5.5, 9), sharex=False)
    gamma_star = table["gamma_star"].iloc[0]
    by_length = table.groupby("L")
    style = model_style("linear")
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
