"""Figure 8 (Appendix H): A, the optimal structures W_PV ∝ A⁻¹, W_KQ ∝ (AAᵀ)⁻¹ (eq. A.12) and the
learned weights of each model, from `structure.structure_tables`."""

from __future__ import annotations

import pandas as pd

from icdenoise.records.figures import start_figure
from icdenoise.studies.onelayer.plots.fig3 import heatmap


def render(tables: dict[str, pd.DataFrame], models: list[str], representative_seed: int, epochs: int, context_length: int):
    """From tables matrices and similarity: A and the optimal structures, then each model's learned weights."""
    matrices, similarity = tables["matrices"], tables["similarity"]
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
