"""Figure 6: the MSE landscape over scaled-identity weights W_KQ = β I, W_PV = α I (Appendix G)
on the Fig. 3 data, with the heuristic point (α = 1, β = 1/σ_z²), the trained weights of Fig. 3
and the grid minimum."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..landscape import scaled_identity_mse
from .style import start_figure

MARKERS = {
    "heuristic": {"color": "#2ca02c", "marker": "o", "label": "heuristic α = 1, β = 1/σ_z²"},
    "trained": {"color": "#ff7f0e", "marker": "D", "label": "trained (Fig. 3), one per seed"},
    "minimum": {"color": "white", "marker": "*", "label": "grid minimum", "s": 220},
}


def landscape_table(case: str, context, query, target, sigma_z_sq: float, trained: pd.DataFrame, fig6: dict) -> pd.DataFrame:
    """Columns case, kind (grid | heuristic | trained | minimum), seed (trained only, else −1), alpha, beta, mse.

    trained: Fig. 3 summary rows of this case and model, with columns seed, alpha, beta.
    """
    alphas = np.linspace(*fig6["alpha_range"], fig6["grid_size"])
    betas = np.linspace(*fig6["beta_range"], fig6["grid_size"])
    mse = scaled_identity_mse(context, query, target, alphas, betas)
    beta_grid, alpha_grid = np.meshgrid(betas, alphas, indexing="ij")
    frames = [pd.DataFrame({"kind": "grid", "seed": -1, "alpha": alpha_grid.ravel(), "beta": beta_grid.ravel(), "mse": mse.ravel()})]
    best = np.unravel_index(np.argmin(mse), mse.shape)
    frames.append(pd.DataFrame([{"kind": "minimum", "seed": -1, "alpha": alphas[best[1]], "beta": betas[best[0]], "mse": mse[best]}]))

    def at(alpha: float, beta: float) -> float:
        return float(scaled_identity_mse(context, query, target, [alpha], [beta])[0, 0])

    frames.append(pd.DataFrame([{"kind": "heuristic", "seed": -1, "alpha": 1.0, "beta": 1.0 / sigma_z_sq, "mse": at(1.0, 1.0 / sigma_z_sq)}]))
    frames.append(pd.DataFrame([
        {"kind": "trained", "seed": int(row.seed), "alpha": row.alpha, "beta": row.beta, "mse": at(row.alpha, row.beta)}
        for row in trained.itertuples()
    ]))
    table = pd.concat(frames, ignore_index=True)
    table.insert(0, "case", case)
    return table


def render(table: pd.DataFrame, cases: list[str]):
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
