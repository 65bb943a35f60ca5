"""Figure 5: the energy of eq. 16 with one descent step (eq. 17 with γ = α, the attention output)
against iterated descent, and the MSE after k steps, from `descent`'s tables."""

from __future__ import annotations

import numpy as np
import pandas as pd

from icdenoise.records.figures import BAYES_COLOR, start_figure

TRAJECTORY_COLORS = ["#d62728", "#ff7f0e", "#9467bd", "#8c564b", "#17becf"]


def render(tables: dict[str, pd.DataFrame]):
    """From tables grid, points and steps. Left: one step (the attention output). Middle: `iterations`
    steps. Right: MSE/n against k."""
    grid, points, steps = tables["grid"], tables["points"], tables["steps"]
    figure, axes = start_figure(1, 3, figsize=(16, 4.8), gridspec_kw={"width_ratios": [1, 1, 1.1]}, layout="constrained")
    size = int(round(np.sqrt(len(grid))))
    xs, ys = (grid[c].to_numpy().reshape(size, size) for c in ("x", "y"))
    alpha, beta, sigma_z_sq = (grid[column].iloc[0] for column in ("alpha", "beta", "sigma_z_sq"))
    iterations = int(points.loc[points["kind"] == "path", "step"].max())
    energies = grid["energy"].to_numpy()
    levels = np.linspace(energies.min(), np.quantile(energies, 0.95), 25)
    context = points[points["kind"] == "context"]
    for ax, last_step, title in ((axes[0], 1, "one step (γ = α): the attention output"),
                                 (axes[1], iterations, f"{iterations} iterated steps")):
        contour = ax.contourf(xs, ys, energies.reshape(size, size), levels=levels, cmap="viridis", extend="max")
        ax.contour(xs, ys, energies.reshape(size, size), levels=levels[::2], colors="black", linewidths=0.25, alpha=0.5)
        ax.scatter(context["x"], context["y"], s=12, color="white", edgecolor="black", linewidth=0.4, label="context tokens", zorder=3)
        for trajectory in sorted(points.loc[points["kind"] == "query", "trajectory"]):
            color = TRAJECTORY_COLORS[trajectory % len(TRAJECTORY_COLORS)]
            mine = points[points["trajectory"] == trajectory]
            path = mine[(mine["kind"] == "path") & (mine["step"] <= last_step)].sort_values("step")
            target = mine[mine["kind"] == "target"]
            ax.plot(path["x"], path["y"], color=color, marker=".", markersize=3, linewidth=1.2, zorder=4)
            ax.scatter(path["x"].iloc[0], path["y"].iloc[0], marker="s", s=30, color=color, edgecolor="black", zorder=5,
                       label="query x̃" if trajectory == 0 else None)
            ax.scatter(path["x"].iloc[-1], path["y"].iloc[-1], marker="o", s=35, color=color, edgecolor="white", zorder=5,
                       label="final state" if trajectory == 0 else None)
            ax.scatter(target["x"], target["y"], marker="*", s=90, color=color, edgecolor="black", zorder=5,
                       label="target x" if trajectory == 0 else None)
        ax.set_aspect("equal")
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize=6, loc="lower left")
    figure.colorbar(contour, ax=list(axes[:2]), shrink=0.8, label="energy (eq. 16)")
    descent = steps[steps["estimator"] == "descent"].sort_values("steps")
    ax = axes[2]
    ax.errorbar(descent["steps"].astype(str), descent["mse"], yerr=descent["sem"], marker="o", capsize=3, color="#1f77b4",
                label="k steps of eq. 17 from x̃")
    bayes = steps[steps["estimator"] == "bayes"].iloc[0]
    ax.axhline(bayes["mse"], color=BAYES_COLOR, label=f"Bayes (eq. 6) {bayes['mse']:.4f}")
    ax.set_yscale("log")
    ax.set_xlabel("descent steps k")
    ax.set_ylabel("MSE / n")
    ax.set_title(f"over {int(descent['n_queries'].iloc[0])} fresh prompts", fontsize=9)
    ax.legend(fontsize=7)
    figure.suptitle(f"Figure 5 — energy landscape of eq. 16 (α = {alpha:g}, β = 1/σ_z² = {beta:g}, σ_z² = {sigma_z_sq:g}; "
                    "the paper's caption prints σ_z² = 10) and gradient descent from the query", fontsize=10)
    return figure
