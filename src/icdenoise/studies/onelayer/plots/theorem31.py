"""Theorem 3.1: the excess MSE of eq. 13 (ideal softmax attention) over Bayes against L on the sphere, from
`convergence`'s tables, with the fitted rate and App. E's 1/L."""

from __future__ import annotations

import numpy as np

from icdenoise.records.figures import BAYES_COLOR, start_figure


def render(tables):
    """From tables["table"] (excess and its sem per L) and tables["fit"] (the fitted slope over L ≥ fit_from):
    the excess with ± 2 standard errors on log–log axes, the fitted line, and a 1/L line through the fit's
    first point."""
    table, fit = tables["table"].sort_values("L"), tables["fit"].iloc[0]
    figure, (left, right) = start_figure(ncols=2, figsize=(9, 3.6))
    left.errorbar(table["L"], table["excess"], yerr=2 * table["excess_sem"], marker="o", markersize=3, color="#1f77b4",
                  label="eq. 13 − Bayes: E‖F_L − f_opt‖²/n")
    lengths = table.loc[table["L"] >= fit["fit_from"], "L"].to_numpy(float)
    left.plot(lengths, np.exp(fit["intercept"]) * lengths ** fit["slope"], color="black", linewidth=1,
              label=f"fit L ≥ {fit['fit_from']:g}: slope {fit['slope']:.2f} [{fit['ci_low']:.2f}, {fit['ci_high']:.2f}]")
    left.plot(lengths, np.exp(fit["intercept"]) * lengths[0] ** fit["slope"] * lengths[0] / lengths, color="grey",
              linestyle="--", linewidth=1, label="App. E: ∝ 1/L")
    left.set_xscale("log")
    left.set_yscale("log")
    left.set_xlabel("context length L")
    left.set_ylabel("excess MSE / n")
    left.legend(fontsize=7)
    right.plot(table["L"], 1 + table["relative_excess"], marker="o", markersize=3, color="#1f77b4", label="eq. 13 / Bayes")
    right.axhline(1.0, color=BAYES_COLOR, label="Bayes (eq. 6)")
    right.set_xscale("log")
    right.set_xlabel("context length L")
    right.set_ylabel("MSE over Bayes MSE")
    right.legend(fontsize=7)
    figure.suptitle("Theorem 3.1 — ideal softmax attention (W_PV = I, W_KQ = I/σ_z²) tends to Bayes on the sphere", fontsize=9)
    figure.tight_layout()
    return figure
