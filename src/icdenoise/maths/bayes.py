"""Bayes-optimal denoising formulas (Section 2.3, Appendix C) and the estimates their plug-in
versions need (top-PCA subspaces, k-means centres).

These are plain array functions. `icdenoise.maths.denoisers` wraps them as denoisers of prompts.
Each shared closed form of the linear task lives here once, built on the noisy query's variance
along the subspace σ0²+σ_z²: the shrinkage σ0²/(σ0²+σ_z²) (eq. 3), the optimal linear-attention
scale γ* = 1/(σ0²+σ_z²) (eq. 10, Fig. 4a, eq. A.12) and the Bayes loss per subspace dimension
σ0²σ_z²/(σ0²+σ_z²) (eq. 4); likewise β = 1/σ_z² of eq. 13.
"""

from __future__ import annotations

import numpy as np
from scipy.special import ive, logsumexp


def query_variance(sigma0_sq: float, sigma_z_sq: float) -> float:
    """σ0²+σ_z²: the variance of the noisy query along a direction of a Gaussian prior component of variance
    σ0² (the linear task's subspace, a mixture component)."""
    return sigma0_sq + sigma_z_sq


def linear_shrinkage(sigma0_sq: float, sigma_z_sq: float) -> float:
    """σ0²/(σ0²+σ_z²): the factor by which eq. 3 shrinks the projection P x̃ (Fig. 2)."""
    return sigma0_sq / query_variance(sigma0_sq, sigma_z_sq)


def optimal_linear_scale(sigma0_sq: float, sigma_z_sq: float) -> float:
    """γ* = 1/(σ0²+σ_z²): the product α·β of optimal linear attention (eq. 10, Fig. 4a, eq. A.12)."""
    return 1.0 / query_variance(sigma0_sq, sigma_z_sq)


def linear_bayes_loss_per_dimension(sigma0_sq: float, sigma_z_sq: float) -> float:
    """σ0²σ_z²/(σ0²+σ_z²): eq. 4's Bayes loss d σ0²σ_z²/(σ0²+σ_z²) divided by the subspace dimension d."""
    return sigma0_sq * sigma_z_sq / query_variance(sigma0_sq, sigma_z_sq)


def bayes_inverse_temperature(sigma_z_sq: float) -> float:
    """β = 1/σ_z²: the inverse temperature at which eq. 13's softmax attention becomes the Bayes
    posterior mean as L → ∞ (Theorem 3.1), the heuristic point of Figs. 5 and 6."""
    return 1.0 / sigma_z_sq


def linear_posterior_mean(query: np.ndarray, basis: np.ndarray, sigma0_sq: float, sigma_z_sq: float) -> np.ndarray:
    """Eq. 3: E[X | X̃] = σ0²/(σ0²+σ_z²) · P x̃, with P = basis basisᵀ.

    query (N, n); basis (N, n, d).
    """
    coordinates = np.einsum("bnd,bn->bd", basis, query)
    return linear_shrinkage(sigma0_sq, sigma_z_sq) * np.einsum("bnd,bd->bn", basis, coordinates)


LARGE_KAPPA = 1e6  # above it the Bessel ratio uses its asymptotic series (scipy's ive returns NaN beyond ~1e9)


def bessel_ratio(order: float, kappa: np.ndarray) -> np.ndarray:
    """I_{ν+1}(κ) / I_ν(κ) for κ ≥ 0, stable for any finite κ.

    Exponentially scaled Bessel functions below `LARGE_KAPPA`; above it the asymptotic series
    1 − (2ν+1)/(2κ) + (2ν+1)(2ν−1)/(8κ²), whose next term is O(κ⁻³) < 1e-17 there.
    """
    kappa = np.asarray(kappa, dtype=float)
    large = kappa > LARGE_KAPPA
    small = np.where(large, 1.0, kappa)
    with np.errstate(invalid="ignore", divide="ignore"):
        direct = ive(order + 1, small) / ive(order, small)
        inverse = 1.0 / kappa
    series = 1 - (2 * order + 1) / 2 * inverse + (2 * order + 1) * (2 * order - 1) / 8 * inverse**2
    return np.where(large, series, direct)


def sphere_posterior_mean(
    query: np.ndarray, basis: np.ndarray, radius: np.ndarray, sigma_z_sq: float, sphere_dim: int | None = None
) -> np.ndarray:
    """Eq. 6: E[X | X̃] = I_{(d+1)/2}(κ) / I_{(d-1)/2}(κ) · R · P x̃ / ‖P x̃‖, κ = R ‖P x̃‖ / σ_z².

    Here d is the sphere's dimension and basis (N, n, d+1) spans its subspace. The Bessel ratio
    (`bessel_ratio`) stays finite for any finite κ, so a tiny σ_z² is valid.
    `sphere_dim` overrides d in the Bessel orders only (to reproduce the authors' orders).
    """
    sphere_dim = basis.shape[2] - 1 if sphere_dim is None else sphere_dim
    radius = np.broadcast_to(np.asarray(radius, dtype=float), query.shape[:1])
    coordinates = np.einsum("bnd,bn->bd", basis, query)
    norm = np.linalg.norm(coordinates, axis=1)
    kappa = radius * norm / sigma_z_sq
    ratio = bessel_ratio((sphere_dim - 1) / 2, kappa)
    direction = np.einsum("bnd,bd->bn", basis, coordinates) / norm[:, None]
    return (ratio * radius)[:, None] * direction


def _mixture_responsibilities(query, centres, weights, variance):
    """Softmax over components a of log w_a + ⟨μ_a, x̃⟩/v − ‖μ_a‖²/(2v).

    The ‖μ_a‖² term is constant when all centres share a radius, as in eqs. 7-8, and keeps the
    posterior exact for centres of unequal norm.
    """
    with np.errstate(divide="ignore"):  # a component of weight 0 gets log-weight −inf: never chosen
        log_weights = np.log(weights)
    logits = (
        log_weights
        + np.einsum("bkn,bn->bk", centres, query) / variance
        - 0.5 * np.sum(centres**2, axis=2) / variance
    )
    return np.exp(logits - logsumexp(logits, axis=1, keepdims=True))


def gmm_posterior_mean(query, centres, weights, sigma0_sq: float, sigma_z_sq: float) -> np.ndarray:
    """Eq. 7: σ0²/(σ0²+σ_z²) x̃ + σ_z²/(σ0²+σ_z²) Σ_a softmax_a(⟨μ_a, x̃⟩/(σ0²+σ_z²)) μ_a.

    query (N, n); centres (N, K, n); weights (N, K).
    """
    variance = query_variance(sigma0_sq, sigma_z_sq)
    resp = _mixture_responsibilities(query, centres, weights, variance)
    centre_mean = np.einsum("bk,bkn->bn", resp, centres)
    return linear_shrinkage(sigma0_sq, sigma_z_sq) * query + sigma_z_sq / variance * centre_mean


def gmm_posterior_mean_point_masses(query, centres, weights, sigma_z_sq: float) -> np.ndarray:
    """Eq. 8, the σ0 → 0 limit of eq. 7: Σ_a softmax_a(⟨μ_a, x̃⟩/σ_z²) μ_a."""
    resp = _mixture_responsibilities(query, centres, weights, sigma_z_sq)
    return np.einsum("bk,bkn->bn", resp, centres)


def low_rank_mixture_posterior_mean(query: np.ndarray, bases: np.ndarray, delta_sq: float) -> np.ndarray:
    """E[x | z] for Wang et al. (2025), Definition 2.1, with the bases known and the component latent.

    query (N, n); bases (N, K, n, p) jointly orthonormal; δ² the noise variance on the other
    subspaces. With c_k = U_kᵀ z, component k makes z Gaussian with variance 1 on subspace k and δ²
    on the K−1 others, so its log-likelihood is −‖c_k‖²/2 − Σ_{j≠k} ‖c_j‖²/(2δ²) + const, the constant
    the same for every k: the posterior weight is π_k ∝ exp(‖c_k‖² (1/δ² − 1)/2) under equal priors.
    Given k the signal U_k a is U_k c_k exactly (the noise is orthogonal to it), so E[x | z] = Σ_k π_k U_k c_k.
    """
    coordinates = np.einsum("bknp,bn->bkp", bases, query)
    log_weights = 0.5 * np.square(coordinates).sum(-1) * (1.0 / delta_sq - 1.0)
    weights = np.exp(log_weights - logsumexp(log_weights, axis=1, keepdims=True))
    return np.einsum("bk,bknp,bkp->bn", weights, bases, coordinates)


def context_second_moment(context: np.ndarray) -> np.ndarray:
    """(N, n, n): each prompt's (1/L) Σ_t x_t x_tᵀ, one BLAS product per prompt (about 10× faster
    than numpy's einsum loop for these shapes)."""
    return context.transpose(0, 2, 1) @ context / context.shape[1]


def top_principal_subspace(context: np.ndarray, k: int) -> np.ndarray:
    """(N, n, k) orthonormal basis of the top-k eigenvectors of each prompt's (1/L) Σ_t x_t x_tᵀ."""
    second_moment = context_second_moment(context)
    _, eigenvectors = np.linalg.eigh(second_moment)
    return eigenvectors[:, :, -k:]


def nearest_centre(context: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """(N, L) index of the centre (N, k, n) nearest to each context token (N, L, n)."""
    distance = np.sum(centres**2, axis=2)[:, None, :] - 2 * context @ centres.transpose(0, 2, 1)  # up to ‖x‖²
    return np.argmin(distance, axis=2)


def kmeans_centres(context: np.ndarray, k: int, iterations: int = 30) -> tuple[np.ndarray, np.ndarray]:
    """Batched Lloyd's k-means on each prompt's context: (centres (N, k, n), weights (N, k)).

    Deterministic farthest-point initialisation from the first token. Each prompt is updated
    until its assignment stops changing, or for `iterations` updates; an empty cluster keeps its
    previous centre. Weights are the fractions of context tokens nearest to the returned centres.
    """
    n_prompts, length, _ = context.shape
    rows = np.arange(n_prompts)
    squared_norms = np.sum(context**2, axis=2)  # (N, L)

    def squared_distance_to_token(index):
        token = context[rows, index]  # (N, n)
        return squared_norms - 2 * (context @ token[:, :, None])[:, :, 0] + squared_norms[rows, index][:, None]

    chosen = [np.zeros(n_prompts, dtype=int)]
    nearest = squared_distance_to_token(chosen[0])
    for _ in range(1, k):
        chosen.append(np.argmax(nearest, axis=1))
        nearest = np.minimum(nearest, squared_distance_to_token(chosen[-1]))
    centres = np.stack([context[rows, index] for index in chosen], axis=1)

    labels = nearest_centre(context, centres)
    active = rows
    for _ in range(iterations):
        if active.size == 0:
            break
        tokens = context[active]
        assignment = np.eye(k)[labels[active]]  # (A, L, k)
        counts = assignment.sum(axis=1)
        sums = assignment.transpose(0, 2, 1) @ tokens
        centres[active] = np.where(counts[:, :, None] > 0, sums / np.maximum(counts, 1)[:, :, None], centres[active])
        new_labels = nearest_centre(tokens, centres[active])
        changed = np.any(new_labels != labels[active], axis=1)
        labels[active] = new_labels
        active = active[changed]
    weights = np.eye(k)[labels].mean(axis=1)
    return centres, weights


def ideal_softmax_attention(context: np.ndarray, query: np.ndarray, beta: float) -> np.ndarray:
    """Eq. 13: Σ_t x_t e^{β⟨x_t, x̃⟩} / Σ_t e^{β⟨x_t, x̃⟩}, softmax attention with W_PV = I, W_KQ = βI.

    With β = 1/σ_z² this converges to the Bayes answer as L → ∞ for sphere-supported p_X
    (Theorem 3.1).
    """
    scores = beta * np.einsum("bln,bn->bl", context, query)
    weights = np.exp(scores - logsumexp(scores, axis=1, keepdims=True))
    return np.einsum("bl,bln->bn", weights, context)


def empirical_covariance_attention(context: np.ndarray, query: np.ndarray, sigma0_sq: float, sigma_z_sq: float) -> np.ndarray:
    """Eq. 10: (1/((σ0²+σ_z²) L)) Σ_t x_t ⟨x_t, x̃⟩, eq. 3 with P̂ = (1/(σ0² L)) Σ_t x_t x_tᵀ.

    This is linear attention (eq. 11) at W_PV = I, W_KQ = γ* I.
    """
    second_moment = context_second_moment(context)
    return np.einsum("bnm,bm->bn", second_moment, query) / query_variance(sigma0_sq, sigma_z_sq)
