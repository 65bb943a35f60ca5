"""Structured optimal weights under a global prompt transform (Appendix H, eq. A.12, Fig. 8).

For prompts (A X, A x̃) with target x_{L+1}, linear attention with W_PV = α A⁻¹ and
W_KQ = β (A Aᵀ)⁻¹ gives x̂ = α β (1/L) Σ_t x_t ⟨x_t, x̃⟩, i.e. eq. 10 in the original
coordinates, which is Bayes-optimal as L → ∞ when α β = 1 / (σ0² + σ_z²).

Learned weights are compared with the structures by cosine similarity (scale-free). Flipping the
signs of W_PV and W_KQ together leaves linear attention unchanged, and softmax attention too in
distribution when the data are symmetric under x → −x (as here), so each seed's two cosines are
also reported jointly sign-aligned: multiplied by the sign of its W_PV cosine.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from icdenoise.maths.bayes import optimal_linear_scale
from icdenoise.maths.models import MODELS


def optimal_structure(matrix: np.ndarray) -> dict[str, np.ndarray]:
    """The unit-scale structures of eq. A.12: W_PV ∝ A⁻¹, W_KQ ∝ (A Aᵀ)⁻¹."""
    inverse = np.linalg.inv(matrix)
    return {"W_PV": inverse, "W_KQ": inverse.T @ inverse}


def cosine_similarity(first: np.ndarray, second: np.ndarray) -> float:
    """⟨first, second⟩_F / (‖first‖_F ‖second‖_F)."""
    return float(np.sum(first * second) / (np.linalg.norm(first) * np.linalg.norm(second)))


def structure_scale(learned: np.ndarray, structure: np.ndarray) -> float:
    """The least-squares scale c minimising ‖learned − c · structure‖_F (α for W_PV, β for W_KQ)."""
    return float(np.sum(learned * structure) / np.sum(structure**2))


def _long(matrix: np.ndarray, **keys) -> pd.DataFrame:
    rows, cols = np.indices(matrix.shape)
    return pd.DataFrame({**keys, "row": rows.ravel(), "col": cols.ravel(), "value": matrix.ravel()})


def structure_tables(weights: pd.DataFrame, matrix: np.ndarray, architectures: dict[str, str], sigma0_sq: float,
                     sigma_z_sq: float, representative_seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Figure 8 tables, with architectures: model name → architecture.

    (matrices: panel, row, col, value; similarity: model, seed, matrix, cosine, aligned_cosine, scale,
    alpha_beta, optimal_alpha_beta)."""
    optimal = optimal_structure(matrix)
    panels = [_long(matrix, panel="A"), _long(optimal["W_PV"], panel="optimal W_PV ∝ A⁻¹"),
              _long(optimal["W_KQ"], panel="optimal W_KQ ∝ (AAᵀ)⁻¹")]
    rows = []
    for model, architecture in architectures.items():
        seeds, ensemble = MODELS[architecture].from_frame(weights[weights["model"] == model], "final")
        learned = {name: ensemble.weights[name].detach().numpy() for name in ("W_PV", "W_KQ")}
        for index, seed in enumerate(seeds):
            cosines = {name: cosine_similarity(learned[name][index], optimal[name]) for name in learned}
            sign = np.sign(cosines["W_PV"])
            scales = {name: structure_scale(learned[name][index], optimal[name]) for name in learned}
            for name in ("W_PV", "W_KQ"):
                rows.append({"model": model, "seed": seed, "matrix": name, "cosine": cosines[name],
                             "aligned_cosine": sign * cosines[name], "scale": scales[name],
                             "alpha_beta": scales["W_PV"] * scales["W_KQ"],
                             "optimal_alpha_beta": optimal_linear_scale(sigma0_sq, sigma_z_sq)})
            if seed == representative_seed:
                panels += [_long(learned[name][index], panel=f"{model} attention {name}") for name in ("W_PV", "W_KQ")]
    return pd.concat(panels, ignore_index=True), pd.DataFrame(rows)
