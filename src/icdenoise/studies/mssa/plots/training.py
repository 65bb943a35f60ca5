"""The in-context models' training curves: normalized training loss against Adam steps, per task."""

from __future__ import annotations

from icdenoise.records.figures import start_figure
from icdenoise.studies.mssa.plots.regression import MODEL_STYLE


def render(tables):
    table = tables["training"]
    tasks = list(dict.fromkeys(table["task"]))
    figure, axes = start_figure(1, len(tasks), figsize=(4.6 * len(tasks), 3.4), layout="constrained", squeeze=False)
    for ax, task in zip(axes[0], tasks):
        mine = table[table["task"] == task]
        for model, style in MODEL_STYLE.items():
            for index, (seed, rows) in enumerate(mine[mine["model"] == model].groupby("seed")):
                ax.plot(rows["step"], rows["normalized_loss"], color=style["color"], alpha=0.8,
                        label=style["label"] if index == 0 else None)
        ax.set_yscale("log")
        ax.set_xlabel("Adam step")
        ax.set_ylabel("training loss / E[y²] (all prefixes)")
        ax.set_title(f"{task} regression")
        ax.legend(fontsize=7)
    return figure
