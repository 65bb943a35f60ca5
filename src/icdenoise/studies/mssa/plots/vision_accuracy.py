"""Tables 1–2, scaled: test accuracy of each vision model, every seed and the mean, labelled with its parameter count;
and the test accuracy during training, one line per seed (figures/mssa/vision.parquet and the training curves)."""

from __future__ import annotations

import numpy as np

from icdenoise.records.figures import start_figure
from icdenoise.studies.mssa.plots.vision_attention import MODEL_NAMES

MODEL_STYLE = {"mssa": "#1f77b4", "mhsa": "#2ca02c", "vit": "#d62728"}
CHANCE = 0.1


def render(tables):
    accuracy, curves = tables["accuracy"], tables["curves"]
    models = [model for model in MODEL_STYLE if model in set(accuracy["model"])]
    figure, (left, right) = start_figure(1, 2, figsize=(9.6, 3.8), layout="constrained")
    for position, model in enumerate(models):
        rows = accuracy[accuracy["model"] == model]
        jitter = np.linspace(-0.12, 0.12, len(rows)) if len(rows) > 1 else np.zeros(1)
        left.scatter(position + jitter, rows["test_accuracy"], color=MODEL_STYLE[model], s=18, zorder=3, label=None)
        mean = rows["test_accuracy"].mean()
        left.hlines(mean, position - 0.25, position + 0.25, color=MODEL_STYLE[model], linewidth=2)
        left.annotate(f"{mean:.3f}", (position + 0.27, mean), fontsize=7, va="center")
        for index, (_, run) in enumerate(curves[curves["model"] == model].groupby("seed")):
            right.plot(run["step"], run["test_accuracy"], color=MODEL_STYLE[model], alpha=0.6, linewidth=1,
                       label=MODEL_NAMES[model] if index == 0 else None)
    labels = []
    for model in models:
        first = accuracy[accuracy["model"] == model].iloc[0]
        labels.append(f"{MODEL_NAMES[model]}\n{first['layers']} layers\n{first['parameters']:,} parameters")
    left.set_xticks(range(len(models)), labels, fontsize=7)
    left.set_xlim(-0.5, len(models) - 0.3)
    low = min(accuracy["test_accuracy"].min(), curves["test_accuracy"].quantile(0.5))
    left.set_ylim(max(0.0, low - 0.02), 1.0)
    left.set_ylabel("top-1 test accuracy")
    left.set_title(f"test accuracy, {accuracy['seed'].nunique()} seeds each (dots) and mean (bar)", fontsize=9)
    right.axhline(CHANCE, color="0.6", linestyle=":", linewidth=1, label="chance")
    right.set_xlabel("Adam step")
    right.set_ylabel("top-1 test accuracy")
    right.set_ylim(0, 1)
    right.set_title("during training, one line per seed", fontsize=9)
    right.legend(fontsize=7, loc="lower right")
    first = accuracy.iloc[0]
    figure.suptitle(f"Tables 1–2 ({first['scale']}: scikit-learn's 8×8 digits, {first['test_images']} test images, not ImageNet); "
                    f"width {first['width']}, {first['heads']} heads", fontsize=9)
    return figure
