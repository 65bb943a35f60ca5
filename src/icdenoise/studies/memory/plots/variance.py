"""Slide 9, cross-talk: the simulated variance of γ_{z,y} = u_yᵀ W e_z against N, for the correct output
(y = f(z)) and a wrong one, next to the slides' n_y/d + (N − n_y)/d² and the exact variance (crosstalk.py)."""

from __future__ import annotations

from icdenoise.records.figures import start_figure
from icdenoise.studies.memory.plots.capacity_curves import d_colours

OUTPUT_TITLES = {"correct": "y = f(z)", "wrong": "y ≠ f(z)"}
MAP_NAMES = {"injective": "injective", "binary": "binary", "few": "few outputs"}


def render(tables):
    table = tables["variance"]
    maps, outputs = list(dict.fromkeys(table["map"])), list(dict.fromkeys(table["output"]))
    colours = d_colours(table["d"].unique())
    figure, axes = start_figure(len(outputs), len(maps), figsize=(4.0 * len(maps), 3.2 * len(outputs)), layout="constrained",
                                squeeze=False)
    for row, output in enumerate(outputs):
        for column, map_name in enumerate(maps):
            ax = axes[row][column]
            mine = table[(table["map"] == map_name) & (table["output"] == output)]
            for d, rows in mine.groupby("d"):
                rows = rows.sort_values("stored")
                ax.plot(rows["stored"], rows["variance"], linestyle="none", marker="o", markersize=4, color=colours[d],
                        label=f"d = {d} simulated")
                ax.plot(rows["stored"], rows["exact_variance"], color=colours[d], linewidth=1)
                ax.plot(rows["stored"], rows["slides_variance"], color=colours[d], linewidth=1, linestyle="--")
            ax.plot([], [], color="black", linewidth=1, label="exact (docs/memory.md)")
            ax.plot([], [], color="black", linewidth=1, linestyle="--", label="slides: n_y/d + (N − n_y)/d²")
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("stored pairs N")
            ax.set_ylabel("Var γ_{z,y}")
            outputs_label = "M = N" if map_name == "injective" else f"M = {mine['outputs'].iloc[0]}"
            ax.set_title(f"{MAP_NAMES[map_name]} ({outputs_label}), {OUTPUT_TITLES[output]}")
            if row == 0 and column == 0:
                ax.legend(fontsize=6.5)
    figure.suptitle(f"Cross-talk variance of the Hebbian memory: {int(table['samples'].min())}+ samples per point", fontsize=9)
    return figure
