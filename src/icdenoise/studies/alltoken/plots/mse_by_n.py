"""The explainer's Fig. 4(a): MSE/σ² by N for every estimator, and against depth at the largest N."""

from __future__ import annotations

import numpy as np

from icdenoise.records.figures import BAYES_COLOR, start_figure

STYLE = {"stage1_only": ("#7f7f7f", "Stage 1 only (the particle)"), "stage2_only": ("#ff7f0e", "Stage 2 only (L = 0)"),
         "two_stage": ("#1f77b4", "two-stage"), "bayes": (BAYES_COLOR, "Bayes (true prior)")}


def render(tables):
    bars, by_depth = tables["mse_by_n"], tables["mse_by_depth"]
    first = bars.iloc[0]
    figure, axes = start_figure(1, 2, figsize=(13, 4.6), layout="constrained")
    ax = axes[0]
    sizes = sorted(bars["N"].unique())
    width = 0.8 / len(STYLE)
    for offset, (name, (color, label)) in enumerate(STYLE.items()):
        mine = bars[bars["estimator"] == name].set_index("N").loc[sizes]
        positions = np.arange(len(sizes)) + (offset - (len(STYLE) - 1) / 2) * width
        ax.bar(positions, mine["mse_over_sigma2"], width, yerr=mine["sem"], capsize=2, color=color, label=label)
    ax.set_xticks(np.arange(len(sizes)), [f"N = {size}" for size in sizes])
    ax.set_ylabel("MSE / σ²")
    ax.axhline(1.0, color="black", linewidth=0.6, linestyle=":", label="the noisy input itself (MSE = σ²)")
    ax.legend(fontsize=7)
    ax.set_title(f"β = {first['beta']:g}, η = {first['eta']:g}, L = {first['L']}, σ² = {first['sigma_z_sq']:g}; "
                 f"error bars: SEM over contexts ({', '.join(str(c) for c in bars.drop_duplicates('N')['contexts'])})", fontsize=8)
    ax = axes[1]
    largest = by_depth[by_depth["N"] == by_depth["N"].max()]
    for name, (color, label) in STYLE.items():
        mine = largest[largest["estimator"] == name].sort_values("depth")
        ax.errorbar(mine["depth"], mine["mse_over_sigma2"], yerr=mine["sem"], color=color, marker=".", markersize=3, capsize=1.5, label=label)
    ax.axvline(first["theory_depth"], color="black", linestyle="--", label=f"L* = βσ²/(2η) = {first['theory_depth']:g}")
    ax.set_yscale("log")
    ax.set_xlabel("depth ℓ (Stage-1 layers)")
    ax.set_ylabel("MSE / σ²")
    ax.set_title(f"against depth at N = {largest['N'].iloc[0]}", fontsize=9)
    ax.legend(fontsize=7)
    figure.suptitle("Two-mode mixture (modes ±1): the explainer's Fig. 4(a)", fontsize=10)
    return figure
