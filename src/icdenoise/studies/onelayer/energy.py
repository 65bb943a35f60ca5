"""The context-dependent dense associative memory of Section 4.

Energy (eq. 16):   E(X, s) = ‖s‖² / (2α) − (1/β) log Σ_t exp(β x_tᵀ s)
Gradient:          ∇_s E = s / α − X softmax(β Xᵀ s)
Descent (eq. 17):  s ← (1 − γ/α) s + γ X softmax(β Xᵀ s)

With s(0) = x̃ and γ = α, one step is the softmax attention output α X softmax(β Xᵀ x̃) of a
layer with W_PV = α I, W_KQ = β I. Arrays are batched: context (..., L, n), states (..., n);
one context (L, n) broadcasts against many states (G, n).
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp, softmax


def _scores(context: np.ndarray, states: np.ndarray, beta: float) -> np.ndarray:
    """β x_tᵀ s, shape (..., L)."""
    return beta * np.einsum("...ln,...n->...l", context, states)


def energy(context: np.ndarray, states: np.ndarray, alpha: float, beta: float) -> np.ndarray:
    """Eq. 16 at each state, shape (...)."""
    return 0.5 / alpha * np.sum(states**2, axis=-1) - logsumexp(_scores(context, states, beta), axis=-1) / beta


def attention_readout(context: np.ndarray, states: np.ndarray, beta: float) -> np.ndarray:
    """X softmax(β Xᵀ s), shape (..., n)."""
    return np.einsum("...l,...ln->...n", softmax(_scores(context, states, beta), axis=-1), context)


def energy_gradient(context: np.ndarray, states: np.ndarray, alpha: float, beta: float) -> np.ndarray:
    """∇_s of eq. 16, shape (..., n)."""
    return states / alpha - attention_readout(context, states, beta)


def descent_step(context: np.ndarray, states: np.ndarray, alpha: float, beta: float, step_size: float) -> np.ndarray:
    """Eq. 17: one gradient step of size γ = `step_size`."""
    return (1.0 - step_size / alpha) * states + step_size * attention_readout(context, states, beta)


def descent_path(
    context: np.ndarray, start: np.ndarray, alpha: float, beta: float, step_size: float, steps: int
) -> np.ndarray:
    """States s(0) = start, s(1), …, s(steps): shape (steps + 1, ..., n)."""
    path = [np.asarray(start, dtype=float)]
    for _ in range(steps):
        path.append(descent_step(context, path[-1], alpha, beta, step_size))
    return np.stack(path)
