"""Figure 5: the energy landscape of eq. 16 for a circle in the plane, one descent step (eq. 17,
γ = α, the attention output) against iterated descent, and the MSE after k steps.

Parameters: α from the config and β = 1/σ_z², the heuristic point of eq. 13.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..bayes import ESTIMATORS
from ..energy import descent_path, energy
from ..tasks import make_task
from .style import BAYES_COLOR, start_figure

TRAJECTORY_COLORS = ["#d62728", "#ff7f0e", "#9467bd", "#8c564b", "#17becf"]


def inverse_temperature(block: dict) -> float:
    """β = 1/σ_z²."""
    return 1.0 / block["sigma_z_sq"]


def landscape_tables(block: dict, fig5: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(grid: x, y, energy; points: kind (context | target | query | path), trajectory, step, x, y).

    One context of L tokens and `trajectories` noisy queries of the same circle, from one seed.
    Paths run `iterations` steps of eq. 17 with γ = α from each query; step 1 is the attention output.
    """
    task, alpha, beta = make_task(block), fig5["alpha"], inverse_temperature(block)
    rng = np.random.default_rng(fig5["seed"])
    tokens, _ = task.sample_tokens(rng, block["L"] + fig5["trajectories"])
    context, targets = tokens[: block["L"]], tokens[block["L"] :]
    queries = targets + np.sqrt(block["sigma_z_sq"]) * rng.standard_normal(targets.shape)

    axis = np.linspace(-fig5["extent"], fig5["extent"], fig5["grid_size"])
    xs, ys = np.meshgrid(axis, axis, indexing="xy")
    states = np.stack([xs.ravel(), ys.ravel()], axis=1)
    grid = pd.DataFrame({"x": states[:, 0], "y": states[:, 1], "energy": energy(context, states, alpha, beta)})

    path = descent_path(context, queries, alpha, beta, alpha, fig5["iterations"])  # (steps + 1, T, 2)
    frames = [
        pd.DataFrame({"kind": "context", "trajectory": -1, "step": -1, "x": context[:, 0], "y": context[:, 1]}),
        pd.DataFrame({"kind": "target", "trajectory": np.arange(len(targets)), "step": -1, "x": targets[:, 0], "y": targets[:, 1]}),
        pd.DataFrame({"kind": "query", "trajectory": np.arange(len(queries)), "step": 0, "x": queries[:, 0], "y": queries[:, 1]}),
    ]
    steps, trajectories = np.meshgrid(np.arange(path.shape[0]), np.arange(path.shape[1]), indexing="ij")
    frames.append(pd.DataFrame({
        "kind": "path", "trajectory": trajectories.ravel(), "step": steps.ravel(),
        "x": path[:, :, 0].ravel(), "y": path[:, :, 1].ravel(),
    }))
    return grid, pd.concat(frames, ignore_index=True)


def step_count_table(block: dict, fig5: dict) -> pd.DataFrame:
    """MSE/n after k steps of eq. 17 (γ = α, from s(0) = x̃) over `n_queries` fresh prompts, each with
    its own context, for every k in `step_counts`; plus the Bayes posterior mean (eq. 6) on the same
    prompts. Columns: estimator, steps, mse, sem, n_queries."""
    task, alpha, beta = make_task(block), fig5["alpha"], inverse_temperature(block)
    prompts = task.sample(fig5["n_queries"], block["L"], fig5["query_seed"])
    path = descent_path(prompts.context, prompts.query, alpha, beta, alpha, max(fig5["step_counts"]))
    rows = []
    for steps in fig5["step_counts"]:
        errors = np.mean((path[steps] - prompts.target) ** 2, axis=1)
        rows.append({"estimator": "descent", "steps": steps, "mse": errors.mean(),
                     "sem": errors.std(ddof=1) / np.sqrt(errors.size)})
    bayes = np.mean((ESTIMATORS[task.name]["oracle"](prompts, task) - prompts.target) ** 2, axis=1)
    rows.append({"estimator": "bayes", "steps": -1, "mse": bayes.mean(), "sem": bayes.std(ddof=1) / np.sqrt(bayes.size)})
    table = pd.DataFrame(rows)
    table["n_queries"] = prompts.n_prompts
    return table


def render(grid: pd.DataFrame, points: pd.DataFrame, steps: pd.DataFrame, alpha: float, sigma_z_sq: float, iterations: int):
    """Left: one step (the attention output). Middle: `iterations` steps. Right: MSE/n against k."""
    figure, axes = start_figure(1, 3, figsize=(16, 4.8), gridspec_kw={"width_ratios": [1, 1, 1.1]}, layout="constrained")
    size = int(round(np.sqrt(len(grid))))
    xs, ys = (grid[c].to_numpy().reshape(size, size) for c in ("x", "y"))
    beta = 1.0 / sigma_z_sq
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
