"""Figure 8 (Appendix H): with prompts (A X, A x̃) the optimal weights are W_PV = α A⁻¹ and
W_KQ = β (A Aᵀ)⁻¹ (eq. A.12); both attention models learn that structure.

Learned weights are compared with the structures by cosine similarity (scale-free). Flipping the
signs of W_PV and W_KQ together leaves linear attention unchanged, and softmax attention too in
distribution when the data are symmetric under x → −x (as here), so each seed's two cosines are
also reported jointly sign-aligned: multiplied by the sign of its W_PV cosine.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..structure import cosine_similarity, optimal_structure, structure_scale
from ..training import ensemble_from_frame
from .fig3 import heatmap
from .style import start_figure


def _long(matrix: np.ndarray, **keys) -> pd.DataFrame:
    rows, cols = np.indices(matrix.shape)
    return pd.DataFrame({**keys, "row": rows.ravel(), "col": cols.ravel(), "value": matrix.ravel()})


def structure_tables(weights: pd.DataFrame, matrix: np.ndarray, models: list[str], sigma0_sq: float, sigma_z_sq: float,
                     representative_seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(matrices: panel, row, col, value; similarity: model, seed, matrix, cosine, aligned_cosine, scale,
    alpha_beta, optimal_alpha_beta)."""
    optimal = optimal_structure(matrix)
    panels = [_long(matrix, panel="A"), _long(optimal["W_PV"], panel="optimal W_PV ∝ A⁻¹"),
              _long(optimal["W_KQ"], panel="optimal W_KQ ∝ (AAᵀ)⁻¹")]
    rows = []
    for model in models:
        seeds, ensemble = ensemble_from_frame(weights[weights["model"] == model], model, "final")
        learned = {"W_PV": ensemble.w_pv.detach().numpy(), "W_KQ": ensemble.w_kq.detach().numpy()}
        for index, seed in enumerate(seeds):
            cosines = {name: cosine_similarity(learned[name][index], optimal[name]) for name in learned}
            sign = np.sign(cosines["W_PV"])
            scales = {name: structure_scale(learned[name][index], optimal[name]) for name in learned}
            for name in ("W_PV", "W_KQ"):
                rows.append({"model": model, "seed": seed, "matrix": name, "cosine": cosines[name],
                             "aligned_cosine": sign * cosines[name], "scale": scales[name],
                             "alpha_beta": scales["W_PV"] * scales["W_KQ"],
                             "optimal_alpha_beta": 1.0 / (sigma0_sq + sigma_z_sq)})
            if seed == representative_seed:
                panels += [_long(learned[name][index], panel=f"{model} attention {name}") for name in ("W_PV", "W_KQ")]
    return pd.concat(panels, ignore_index=True), pd.DataFrame(rows)


def render(matrices: pd.DataFrame, similarity: pd.DataFrame, models: list[str], representative_seed: int,
           epochs: int, context_length: int):
    figure, axes = start_figure(1 + len(models), 3, figsize=(10, 3.2 * (1 + len(models))), squeeze=False)
    for ax, panel, label in zip(axes[0], ["A", "optimal W_PV ∝ A⁻¹", "optimal W_KQ ∝ (AAᵀ)⁻¹"], ["(a) ", "(b) ", "(b) "]):
        heatmap(ax, matrices[matrices["panel"] == panel], label + panel)
    for row, model in enumerate(models, start=1):
        label = f"({chr(ord('b') + row)}) "
        mine = similarity[similarity["model"] == model]
        summary = mine.groupby("matrix")["aligned_cosine"].agg(["mean", "min"])
        product = mine.groupby("seed")["alpha_beta"].first()
        text = "\n".join(
            [f"{model} attention, {mine['seed'].nunique()} seeds", "sign-aligned cosine with optimum:"]
            + [f"  {name}: mean {summary.loc[name, 'mean']:.3f}, min {summary.loc[name, 'min']:.3f}" for name in ("W_PV", "W_KQ")]
            + [f"fitted α·β = {product.mean():.3f} (optimum {mine['optimal_alpha_beta'].iloc[0]:.3f})"]
        )
        axes[row, 0].axis("off")
        axes[row, 0].text(0.0, 0.5, text, fontsize=8, va="center", family="monospace")
        for ax, name in zip(axes[row, 1:], ("W_PV", "W_KQ")):
            heatmap(ax, matrices[matrices["panel"] == f"{model} attention {name}"], f"{label}{model}: learned {name} (seed {representative_seed})")
    figure.suptitle("Figure 8 — attention learns the structured optimum W_PV ∝ A⁻¹, W_KQ ∝ (AAᵀ)⁻¹\n"
                    f"(final weights after {epochs} epochs of Adam, L = {context_length})")
    figure.tight_layout()
    return figure
