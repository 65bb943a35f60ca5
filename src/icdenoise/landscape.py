"""The MSE landscape over scaled-identity softmax attention weights (Appendix G, Fig. 6).

With W_PV = α I and W_KQ = β I, eq. 12 reads x̂ = α m_β with m_β = X softmax(β Xᵀ x̃), so for a
fixed β the loss is a quadratic in α:

    N n · MSE(α, β) = α² Σ‖m_β‖² − 2α Σ⟨m_β, x⟩ + Σ‖x‖².

One softmax pass per β therefore gives a whole column of α values.
"""

from __future__ import annotations

import numpy as np
from scipy.special import softmax


def _readout_moments(context: np.ndarray, query: np.ndarray, target: np.ndarray, beta: float) -> tuple[float, float]:
    """(Σ‖m_β‖², Σ⟨m_β, x⟩) over the prompts."""
    weights = softmax(beta * np.einsum("bln,bn->bl", context, query), axis=1)
    readout = np.einsum("bl,bln->bn", weights, context)
    return float(np.sum(readout**2)), float(np.sum(readout * target))


def scaled_identity_mse(
    context: np.ndarray, query: np.ndarray, target: np.ndarray, alphas: np.ndarray, betas: np.ndarray
) -> np.ndarray:
    """MSE/n of x̂ = α X softmax(β Xᵀ x̃) for every (β, α): shape (len(betas), len(alphas)).

    context (N, L, n), query and target (N, n), all in float64 for an exact quadratic.
    """
    context, query, target = (np.asarray(a, dtype=np.float64) for a in (context, query, target))
    alphas = np.asarray(alphas, dtype=np.float64)
    count = target.size
    target_energy = float(np.sum(target**2))
    rows = []
    for beta in np.asarray(betas, dtype=np.float64):
        readout_energy, overlap = _readout_moments(context, query, target, beta)
        rows.append((alphas**2 * readout_energy - 2 * alphas * overlap + target_energy) / count)
    return np.array(rows)
