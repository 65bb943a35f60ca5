"""Slide 9, capacity against d on log-log axes: each seed's bisected capacity of the Hebbian memory, the
fitted exponent with its 95% interval, and the slides' rate (N ≈ d² injective, N ≈ d few outputs)."""

from __future__ import annotations

import numpy as np

from icdenoise.records.figures import start_figure
from icdenoise.studies.memory.plots.capacity_curves import map_title

FIT_COLOUR, SLIDES_COLOUR = "#1f77b4", "#d62728"


def render(tables):
    capacity, fits = tables["capacity"], tables["capacity_fit"]
    hebbian = capacity[capacity["memory"] == "hebbian"]
    maps = list(dict.fromkeys(hebbian["map"]))
    figure, axes = start_figure(1, len(maps), figsize=(4.2 * len(maps), 3.6), layout="constrained", squeeze=False)
    for ax, map_name in zip(axes[0], maps):
        rows = hebbian[hebbian["map"] == map_name]
        fit = fits[(fits["map"] == map_name) & (fits["memory"] == "hebbian") & (fits["against"] == "d")].iloc[0]
        ax.plot(rows["d"], rows["capacity"], linestyle="none", marker="o", markersize=4, color=FIT_COLOUR, alpha=0.6,
                label="capacity, one per seed")
        grid = np.geomspace(rows["d"].min(), rows["d"].max(), 50)
        ax.plot(grid, np.exp(fit["intercept"]) * grid ** fit["slope"], color=FIT_COLOUR,
                label=f"fit: slope {fit['slope']:.2f} [{fit['ci_low']:.2f}, {fit['ci_high']:.2f}] (95%)")
        first = rows[rows["d"] == rows["d"].min()]["capacity"].mean()
        ax.plot(grid, first * (grid / grid[0]) ** fit["slides_slope"], color=SLIDES_COLOUR, linestyle="--",
                label=f"slides: N ∝ d^{fit['slides_slope']:g} (through the smallest d's mean)")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("embedding dimension d")
        ax.set_ylabel(f"largest N with accuracy ≥ {rows['threshold'].iloc[0]:g}")
        ax.set_title(map_title(map_name, rows["outputs"].iloc[0]))
        ax.legend(fontsize=7)
    figure.suptitle("Capacity of the Hebbian memory against d (bisection in N)", fontsize=9)
    return figure
