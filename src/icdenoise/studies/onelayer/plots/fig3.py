"""Figure 3: training dynamics (a) and learned weights (b) for the cases at their own L, drawn from
the training, closed-form and summary tables."""

from __future__ import annotations

import numpy as np
import pandas as pd

from icdenoise.records.figures import BAYES_COLOR, model_style, start_figure


def _loss_panel(ax, losses: pd.DataFrame, summary: pd.DataFrame, case: str, models: list[str]) -> None:
    for model in models:
        style = model_style(model)
        frame = losses[(losses["case"] == case) & (losses["model"] == model)]
        for split, linestyle, alpha in (("train", "-", 1.0), ("test", "--", 0.6)):
            curve = frame[frame["split"] == split].groupby("epoch")["mse"].agg(["mean", "min", "max"])
            ax.fill_between(curve.index, curve["min"], curve["max"], color=style["color"], alpha=0.15, linewidth=0)
            ax.plot(
                curve.index, curve["mean"], linestyle=linestyle, color=style["color"], alpha=alpha,
                marker=style["marker"], markevery=max(1, len(curve) // 12), markersize=4,
                label=f"{style['label']} ({split})",
            )
    baselines = summary[summary["case"] == case].iloc[0]
    ax.axhline(baselines["zero_mse"], color="grey", linestyle="--", linewidth=1, label="zero predictor")
    ax.axhline(baselines["bayes_mse"], color=BAYES_COLOR, linewidth=1.5, label="Bayes optimum")
    point_masses = baselines["point_masses_mse"]
    if np.isfinite(point_masses):
        ax.axhline(point_masses, color="grey", linewidth=1, label="Bayes, σ0→0 (eq. 8)")
    ratios = summary[summary["case"] == case].groupby("model")["test_over_bayes"].mean()
    ax.set_yscale("log")
    ax.legend(fontsize=6, loc="upper right")
    ax.set_xlabel("epoch")
    ax.set_ylabel("MSE / n")
    ratio_text = ", ".join(f"{model} {ratios[model]:.3f}" for model in models)
    ax.set_title(f"{case}: training dynamics\nfinal test / Bayes (mean over seeds): {ratio_text}", fontsize=9)


def heatmap(ax, weights: pd.DataFrame, title: str) -> None:
    """A weight matrix on a symmetric diverging scale, titled with its mean diagonal."""
    matrix = weights.pivot(index="row", columns="col", values="value").to_numpy()
    limit = np.abs(matrix).max()
    image = ax.imshow(matrix, cmap="RdBu_r", vmin=-limit, vmax=limit)
    ax.figure.colorbar(image, ax=ax, shrink=0.7)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_title(f"{title}\nmean diag = {np.mean(np.diag(matrix)):.3f}", fontsize=9)


def render(
    tables: dict[str, pd.DataFrame],
    cases: list[str],
    models: list[str],
    representative_seed: int,
    initial_weights_cases: list[str],
    title: str = "Figure 3",
):
    """From tables weights, losses and summary (Figure 3's table). Panel (a) per case: mean loss over
    seeds with min–max band, zero and Bayes lines. The loss panels quote the mean over seeds of final
    test MSE / Bayes MSE from the summary.
    Panel (b): final W_KQ, W_PV of each model for `representative_seed`, and the initial weights
    (identical for both models: they depend on the seed only) for `initial_weights_cases`."""
    weights, losses, summary = tables["weights"], tables["losses"], tables["summary"]
    heatmaps = 2 * len(models) + (2 if initial_weights_cases else 0)
    figure, axes = start_figure(
        len(cases), 1 + heatmaps, figsize=(4.5 + 2.3 * heatmaps, 3.2 * len(cases)),
        gridspec_kw={"width_ratios": [2.2] + [1] * heatmaps}, squeeze=False,
    )
    seed_weights = weights[weights["seed"] == representative_seed]
    for row, case in enumerate(cases):
        _loss_panel(axes[row, 0], losses, summary, case, models)
        panels = [
            (model, "final", matrix, f"{matrix} final ({model})") for model in models for matrix in ("W_KQ", "W_PV")
        ]
        if case in initial_weights_cases:
            panels += [(models[0], "initial", matrix, f"{matrix} initial") for matrix in ("W_KQ", "W_PV")]
        for column, ax in enumerate(axes[row, 1:]):
            if column >= len(panels):
                ax.axis("off")
                continue
            model, stage, matrix, panel_title = panels[column]
            selected = seed_weights[
                (seed_weights["case"] == case) & (seed_weights["model"] == model)
                & (seed_weights["stage"] == stage) & (seed_weights["matrix"] == matrix)
            ]
            heatmap(ax, selected, panel_title)
    seeds = ", ".join(str(seed) for seed in sorted(losses["seed"].unique()))
    figure.suptitle(f"{title} — (a) mean and min–max loss over seeds {seeds}; (b) weights of seed {representative_seed}")
    figure.tight_layout()
    return figure
