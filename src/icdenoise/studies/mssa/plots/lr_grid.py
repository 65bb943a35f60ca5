"""The learning-rate grid of Fig. 6 (App. C.2): the normalized test error at the most in-context examples against the
learning rate, one panel per task, a line per model and clipping norm (mean over seeds, each seed a dot); a diverged
point is a cross at the top of its panel."""

from __future__ import annotations

import numpy as np

from icdenoise.records.figures import start_figure

from .regression import MODEL_STYLE

CLIP_STYLES = ("-", "--", ":", "-.")


def render(tables):
    table = tables["lr_grid"]
    tasks, clips = list(dict.fromkeys(table["task"])), sorted(table["clip"].unique())
    figure, axes = start_figure(1, len(tasks), figsize=(4.6 * len(tasks), 3.8), layout="constrained", squeeze=False)
    for ax, task in zip(axes[0], tasks):
        mine = table[table["task"] == task]
        top = max(1.1, float(np.nanmax(mine["normalized_mse"])) * 1.05) if mine["normalized_mse"].notna().any() else 1.1
        for model, style in MODEL_STYLE.items():
            for clip, linestyle in zip(clips, CLIP_STYLES):
                rows = mine[(mine["model"] == model) & (mine["clip"] == clip)]
                if rows.empty:
                    continue
                trained = rows[rows["status"] == "trained"]
                means = trained.groupby("learning_rate")["normalized_mse"].mean()
                ax.plot(means.index, means.to_numpy(), color=style["color"], linestyle=linestyle,
                        label=f"{style['label']}, clip {clip:g}")
                ax.scatter(trained["learning_rate"], trained["normalized_mse"], color=style["color"], s=8)
                diverged = rows[rows["status"] == "diverged"]
                ax.scatter(diverged["learning_rate"], np.full(len(diverged), top), color=style["color"], marker="x", s=30)
        ax.axhline(1.0, color="0.7", linewidth=0.8)  # the zero predictor
        ax.set_xscale("log")
        ax.set_ylim(0, top * 1.02)
        ax.set_xlabel("learning rate")
        ax.set_ylabel("squared error / E[y²] at the most examples")
        ax.set_title(f"{task} regression (× at the top: diverged)")
        ax.legend(fontsize=6)
    figure.suptitle("Fig. 6's learning-rate grid (the paper's App. C.2); grey: the zero predictor", fontsize=9)
    return figure
