"""Slide 9, capacity: recall accuracy of the Hebbian memory against the number of stored pairs N, one
panel per map, one line per d (mean over seeds, band min-max), with each d's bisected capacity marked."""

from __future__ import annotations

import matplotlib as mpl

from icdenoise.records.figures import start_figure

MAP_TITLES = {"injective": "f injective (M = N)", "binary": "f binary (M = 2)", "few": "few outputs (M = {outputs})"}


def map_title(map_name: str, outputs: str) -> str:
    return MAP_TITLES[map_name].format(outputs=outputs)


def d_colours(ds) -> dict:
    palette = mpl.colormaps["viridis"]
    ds = sorted(ds)
    return {d: palette(0.9 * index / max(1, len(ds) - 1)) for index, d in enumerate(ds)}


def render(tables):
    curves, capacity = tables["curves"], tables["capacity"]
    maps = list(dict.fromkeys(curves["map"]))
    colours = d_colours(curves["d"].unique())
    figure, axes = start_figure(1, len(maps), figsize=(4.2 * len(maps), 3.6), layout="constrained", squeeze=False)
    for ax, map_name in zip(axes[0], maps):
        mine = curves[curves["map"] == map_name]
        found = capacity[(capacity["map"] == map_name) & (capacity["memory"] == "hebbian")]
        threshold = mine["threshold"].iloc[0]
        for d, rows in mine.groupby("d"):
            summary = rows.groupby("stored")["accuracy"].agg(["mean", "min", "max"])
            ax.plot(summary.index, summary["mean"], color=colours[d], marker=".", label=f"d = {d}")
            ax.fill_between(summary.index, summary["min"], summary["max"], color=colours[d], alpha=0.15)
            ax.plot(found[found["d"] == d]["capacity"].mean(), threshold, marker="v", color=colours[d], markersize=7,
                    linestyle="none")
        ax.axhline(threshold, color="grey", linestyle=":", linewidth=1, label=f"threshold {threshold:g}")
        ax.set_xscale("log")
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel("stored pairs N")
        ax.set_ylabel("recall accuracy")
        ax.set_title(map_title(map_name, found["outputs"].iloc[0]))
        ax.legend(fontsize=7)
    figure.suptitle(f"Hebbian memory W = Σ_z u_f(z) e_zᵀ, argmax read-out; {curves['seed'].nunique()} seeds, band min-max, "
                    "▼ mean bisected capacity", fontsize=9)
    return figure
