"""Slide 9, "capacity ≈ number of parameters": the capacity of the low-rank memory W₁ᵀW₂ (random W₁, one
step on W₂) and of the trained one-hidden-layer MLP against m·d, each seed a point, with the fitted
exponent and its 95% interval, against the slides' N ≈ m d."""

from __future__ import annotations

import numpy as np

from icdenoise.records.figures import start_figure

MEMORY_STYLE = {"low_rank": {"color": "#1f77b4", "marker": "o", "label": "low rank W₁ᵀW₂, one step"},
                "mlp": {"color": "#ff7f0e", "marker": "s", "label": "MLP W₁σ(W₂ᵀe), trained"}}


def render(tables):
    widths, fits = tables["width"], tables["capacity_fit"]
    figure, axes = start_figure(1, 1, figsize=(5.6, 5.0), layout="constrained", squeeze=False)
    ax = axes[0][0]
    for memory, rows in widths.groupby("memory", sort=False):
        style = MEMORY_STYLE[memory]
        fit = fits[(fits["memory"] == memory) & (fits["against"] == "m·d")].iloc[0]
        ax.plot(rows["params_md"], rows["capacity"], linestyle="none", marker=style["marker"], markersize=4, alpha=0.6,
                color=style["color"])
        grid = np.geomspace(rows["params_md"].min(), rows["params_md"].max(), 50)
        ax.plot(grid, np.exp(fit["intercept"]) * grid ** fit["slope"], color=style["color"],
                label=f"{style['label']} ({rows['map'].iloc[0]}): slope {fit['slope']:.2f} [{fit['ci_low']:.2f}, {fit['ci_high']:.2f}]")
    low_rank = widths[widths["memory"] == "low_rank"]
    largest = low_rank[low_rank["params_md"] == low_rank["params_md"].max()]
    grid = np.geomspace(widths["params_md"].min(), widths["params_md"].max(), 50)
    ax.plot(grid, largest["capacity"].mean() * grid / largest["params_md"].iloc[0], color="#d62728", linestyle="--",
            label="slides: N ∝ m·d (through the low-rank mean at the largest m·d)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("parameters m·d")
    ax.set_ylabel("capacity N (accuracy ≥ threshold)")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16))
    ax.set_title("Capacity against the number of parameters; points: one per (d, m, seed)")
    return figure
