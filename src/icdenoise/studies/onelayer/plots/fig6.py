"""Figure 6: the (β, α) MSE landscapes of scaled-identity softmax attention with the heuristic, trained
and minimum points, from `landscape.landscape_table`."""

from __future__ import annotations

import numpy as np
import pandas as pd

from icdenoise.records.figures import start_figure

MARKERS = {
    "heuristic": {"color": "#2ca02c", "marker": "o", "label": "heuristic α = 1, β = 1/σ_z²"},
    "trained": {"color": "#ff7f0e", "marker": "D", "label": "trained (Fig. 3), one per seed"},
    "minimum": {"color": "white", "marker": "*", "label": "grid minimum", "s": 220},
}


def render(tables: dict[str, pd.DataFrame], cases: list[str]):
    """One landscape per case of tables["landscapes"] (every case's scan, stacked)."""
    table = tables["landscapes"]
    figure, axes = start_figure(1, len(cases), figsize=(5.6 * len(cases), 4.6), squeeze=False)
    for ax, case in zip(axes[0], cases):
        mine = table[table["case"] == case]
        grid = mine[mine["kind"] == "grid"].pivot(index="alpha", columns="beta", values="mse")
        values = np.log10(grid.to_numpy())
        image = ax.pcolormesh(grid.columns, grid.index, values, cmap="magma_r", shading="nearest", edgecolors="face",
                              linewidth=0, rasterized=True)
        ax.contour(grid.columns, grid.index, values, levels=12, colors="black", linewidths=0.3)
        figure.colorbar(image, ax=ax, label="log10 MSE / n")
        for kind, style in MARKERS.items():
            points = mine[mine["kind"] == kind]
            ax.scatter(points["beta"], points["alpha"], s=style.get("s", 60), color=style["color"], marker=style["marker"],
                       edgecolor="black", linewidth=0.8, label=style["label"], zorder=5)
        minimum = mine[mine["kind"] == "minimum"].iloc[0]
        ax.set_title(f"{case}: grid minimum {minimum['mse']:.4f} at α = {minimum['alpha']:.2f}, β = {minimum['beta']:.2f}", fontsize=9)
        ax.set_xlabel("β  (W_KQ = β I)")
        ax.set_ylabel("α  (W_PV = α I)")
        ax.legend(fontsize=6, loc="lower right")
    side = int(round(np.sqrt((table["kind"] == "grid").sum() / len(cases))))
    figure.suptitle(f"Figure 6 — softmax attention MSE landscape over a {side}×{side} grid of scaled-identity weights")
    figure.tight_layout()
    return figure
