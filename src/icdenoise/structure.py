"""Structured optimal weights under a global prompt transform (Appendix H, eq. A.12, Fig. 8).

For prompts (A X, A x̃) with target x_{L+1}, linear attention with W_PV = α A⁻¹ and
W_KQ = β (A Aᵀ)⁻¹ gives x̂ = α β (1/L) Σ_t x_t ⟨x_t, x̃⟩, i.e. eq. 10 in the original
coordinates, which is Bayes-optimal as L → ∞ when α β = 1 / (σ0² + σ_z²).
"""

from __future__ import annotations

import numpy as np


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
