"""Slides 8 and 23: the capacity of one gradient step from W = 0 against the Hebbian memory's, per map, and
(injective map) of the same step on noisy inputs x = e_y + p_t. Mean over seeds, band min-max."""

from __future__ import annotations

from icdenoise.records.figures import start_figure
from icdenoise.studies.memory.plots.capacity_curves import map_title

MEMORY_STYLE = {
    "hebbian": {"color": "#1f77b4", "marker": "o", "label": "Hebbian Σ u_f(z) e_zᵀ"},
    "gradient_step": {"color": "#ff7f0e", "marker": "s", "label": "one gradient step W₁ (clean inputs)"},
    "gradient_step_noisy": {"color": "#2ca02c", "marker": "^", "label": "one gradient step, inputs e_y + p_t"},
}


def render(tables):
    capacity = tables["capacity"]
    maps = list(dict.fromkeys(capacity["map"]))
    figure, axes = start_figure(1, len(maps), figsize=(4.2 * len(maps), 3.6), layout="constrained", squeeze=False)
    for ax, map_name in zip(axes[0], maps):
        mine = capacity[capacity["map"] == map_name]
        for memory, rows in mine.groupby("memory", sort=False):
            style = MEMORY_STYLE[memory]
            summary = rows.groupby("d")["capacity"].agg(["mean", "min", "max"])
            ax.plot(summary.index, summary["mean"], color=style["color"], marker=style["marker"], markersize=4, label=style["label"])
            ax.fill_between(summary.index, summary["min"], summary["max"], color=style["color"], alpha=0.15)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("embedding dimension d")
        ax.set_ylabel(f"largest N with accuracy ≥ {mine['threshold'].iloc[0]:g}")
        ax.set_title(map_title(map_name, mine["outputs"].iloc[0]))
        ax.legend(fontsize=7)
    positions = capacity["positions"].iloc[0]
    figure.suptitle(f"One gradient step against the Hebbian memory; noisy inputs carry one of T = {positions} random "
                    f"positions; {capacity['seed'].nunique()} seeds, band min-max", fontsize=9)
    return figure
