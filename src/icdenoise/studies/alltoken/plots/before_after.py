"""The explainer's first figure: tokens and x̂* at depth 0 and after `depth` layers, the Stage-2 energy
at both depths, and the spread of x̂* over draws."""

from __future__ import annotations

import numpy as np

from icdenoise.records.figures import BAYES_COLOR, start_figure

QUERY_COLOR = "#f0a30a"
DEPTH_COLORS = ["#7f7f7f", "#1f77b4"]


def render(tables):
    estimates, tokens, energy = tables["estimates"], tables["tokens"], tables["energy"]
    depths = sorted(tokens["depth"].unique())
    first = estimates.iloc[0]
    figure, axes = start_figure(1, 4, figsize=(17, 3.8), layout="constrained")
    for ax, depth, color in zip(axes[:2], depths, DEPTH_COLORS):
        mine = tokens[tokens["depth"] == depth]
        others = mine[~mine["is_query"]]
        jitter = np.linspace(-0.3, 0.3, len(others))
        ax.scatter(others["position"], jitter, s=18, color="0.55", label="particles z_j")
        for centre in sorted(set(np.round(tokens["clean"], 6))):
            ax.axvline(centre, color="0.85", linewidth=3, zorder=0)
        estimate = estimates[(estimates["depth"] == depth) & (estimates["draw"] == 0)]["estimate"].iloc[0]
        ax.scatter([first["query"]], [0], marker="*", s=220, color=QUERY_COLOR, edgecolor="black", zorder=5, label=f"query y* = {first['query']:g}")
        ax.axvline(estimate, color=color, linestyle="--", label=f"x̂* = {estimate:.2f} (this draw)")
        ax.set_yticks([])
        ax.set_xlabel("x")
        ax.set_title(f"depth {depth}" + (" (no Stage 1)" if depth == 0 else f" (β = {first['beta']:g}, η = {first['eta']:g})"))
        ax.legend(fontsize=7, loc="upper left")
    ax = axes[2]
    for depth, color in zip(depths, DEPTH_COLORS):
        curve = energy[energy["depth"] == depth]
        ax.plot(curve["q"], curve["energy"], color=color, label=f"depth {depth}")
    ax.axvline(first["query"], color=QUERY_COLOR, linestyle=":", label="y*")
    ax.set_xlabel("q")
    ax.set_ylabel("E(Z; q) = −(1/β_c) log Σ_j exp(−β_c/2 (q − z_j)²)")
    ax.set_title(f"Stage-2 energy, β_c = 1/σ² = {1 / first['sigma_z_sq']:g} (this draw)")
    ax.legend(fontsize=7)
    ax = axes[3]
    bins = np.linspace(estimates["estimate"].min() - 0.1, estimates["estimate"].max() + 0.1, 60)
    for depth, color in zip(depths, DEPTH_COLORS):
        values = estimates.loc[estimates["depth"] == depth, "estimate"]
        ax.hist(values, bins=bins, color=color, alpha=0.6, label=f"depth {depth}: mean {values.mean():.2f}, sd {values.std():.2f}")
    ax.axvline(first["query_clean"], color=BAYES_COLOR, label=f"clean value {first['query_clean']:g}")
    ax.set_xlabel("x̂*")
    ax.set_ylabel("draws")
    ax.set_title(f"x̂* over {estimates['draw'].nunique()} draws of the other tokens")
    ax.legend(fontsize=7)
    figure.suptitle(f"Two-point prior ±2, σ² = {first['sigma_z_sq']:g}, {tokens['token'].nunique()} tokens: the Stage-2 estimate "
                    "without and with Stage 1", fontsize=10)
    return figure
