"""Bayes-optimal denoisers (Section 2.3, Appendix C), their plug-in versions and the zero predictor.

Every estimator has the signature ``estimator(prompts, task) -> (N, n) predictions`` so that one
evaluation routine scores them all. Oracle estimators read the true per-prompt task
(``prompts.task``); plug-in estimators see only the prompt's own context and query, and estimate
the subspace, radius or centres from the context before applying the same posterior mean.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from scipy.special import ive, logsumexp

from .tasks import GaussianMixture, LinearSubspace, Prompts, Sphere, Task

Estimator = Callable[[Prompts, Task], np.ndarray]


def linear_posterior_mean(query: np.ndarray, basis: np.ndarray, sigma0_sq: float, sigma_z_sq: float) -> np.ndarray:
    """Eq. 3: E[X | X̃] = σ0²/(σ0²+σ_z²) · P x̃, with P = basis basisᵀ.

    query (N, n); basis (N, n, d).
    """
    coordinates = np.einsum("bnd,bn->bd", basis, query)
    return sigma0_sq / (sigma0_sq + sigma_z_sq) * np.einsum("bnd,bd->bn", basis, coordinates)


def sphere_posterior_mean(
    query: np.ndarray, basis: np.ndarray, radius: np.ndarray, sigma_z_sq: float, sphere_dim: int | None = None
) -> np.ndarray:
    """Eq. 6: E[X | X̃] = I_{(d+1)/2}(κ) / I_{(d-1)/2}(κ) · R · P x̃ / ‖P x̃‖, κ = R ‖P x̃‖ / σ_z².

    Here d is the sphere's dimension and basis (N, n, d+1) spans its subspace. The Bessel ratio
    uses exponentially scaled functions (the scalings cancel), so large κ does not overflow.
    `sphere_dim` overrides d in the Bessel orders only (to reproduce the authors' orders).
    """
    sphere_dim = basis.shape[2] - 1 if sphere_dim is None else sphere_dim
    radius = np.broadcast_to(np.asarray(radius, dtype=float), query.shape[:1])
    coordinates = np.einsum("bnd,bn->bd", basis, query)
    norm = np.linalg.norm(coordinates, axis=1)
    kappa = radius * norm / sigma_z_sq
    ratio = ive((sphere_dim + 1) / 2, kappa) / ive((sphere_dim - 1) / 2, kappa)
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
    variance = sigma0_sq + sigma_z_sq
    resp = _mixture_responsibilities(query, centres, weights, variance)
    centre_mean = np.einsum("bk,bkn->bn", resp, centres)
    return sigma0_sq / variance * query + sigma_z_sq / variance * centre_mean


def gmm_posterior_mean_point_masses(query, centres, weights, sigma_z_sq: float) -> np.ndarray:
    """Eq. 8, the σ0 → 0 limit of eq. 7: Σ_a softmax_a(⟨μ_a, x̃⟩/σ_z²) μ_a."""
    resp = _mixture_responsibilities(query, centres, weights, sigma_z_sq)
    return np.einsum("bk,bkn->bn", resp, centres)


def top_principal_subspace(context: np.ndarray, k: int) -> np.ndarray:
    """(N, n, k) orthonormal basis of the top-k eigenvectors of each prompt's (1/L) Σ_t x_t x_tᵀ."""
    second_moment = np.einsum("bln,blm->bnm", context, context) / context.shape[1]
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


def zero_predictor(prompts: Prompts, task: Task) -> np.ndarray:
    """The trivial baseline x̂ = 0; its loss is E‖x‖²."""
    return np.zeros_like(prompts.query)


def linear_oracle(prompts: Prompts, task: LinearSubspace) -> np.ndarray:
    return linear_posterior_mean(prompts.query, prompts.task["basis"], task.sigma0_sq, task.sigma_z_sq)


def linear_plugin(prompts: Prompts, task: LinearSubspace) -> np.ndarray:
    """Eq. 3 with P̂ the projector onto the top-d PCA subspace of the context."""
    basis = top_principal_subspace(prompts.context, task.d)
    return linear_posterior_mean(prompts.query, basis, task.sigma0_sq, task.sigma_z_sq)


def linear_empirical_covariance(prompts: Prompts, task: LinearSubspace) -> np.ndarray:
    """Eq. 10: (1/((σ0²+σ_z²)L)) Σ_t x_t ⟨x_t, x̃⟩, eq. 3 with P̂ = (1/(σ0² L)) Σ_t x_t x_tᵀ.

    This is linear attention (eq. 11) at W_PV = I, W_KQ = I/(σ0²+σ_z²).
    """
    second_moment = np.einsum("bln,blm->bnm", prompts.context, prompts.context) / prompts.context.shape[1]
    return np.einsum("bnm,bm->bn", second_moment, prompts.query) / (task.sigma0_sq + task.sigma_z_sq)


def ideal_softmax(prompts: Prompts, task: Sphere | GaussianMixture) -> np.ndarray:
    """Eq. 13 at the heuristic point α = 1, β = 1/σ_z²."""
    return ideal_softmax_attention(prompts.context, prompts.query, 1.0 / task.sigma_z_sq)


def sphere_oracle(prompts: Prompts, task: Sphere) -> np.ndarray:
    return sphere_posterior_mean(prompts.query, prompts.task["basis"], prompts.task["radius"], task.sigma_z_sq)


def sphere_oracle_authors_orders(prompts: Prompts, task: Sphere) -> np.ndarray:
    """Eq. 6 with the Bessel orders (n−1)/2, (n−3)/2 in place of (d+1)/2, (d−1)/2: at n = 16, d = 8
    these are the I_{7.5}/I_{6.5} of the authors' code, which drew the published Fig 3 line."""
    basis = prompts.task["basis"]
    return sphere_posterior_mean(prompts.query, basis, prompts.task["radius"], task.sigma_z_sq, sphere_dim=task.n - 2)


def sphere_plugin(prompts: Prompts, task: Sphere) -> np.ndarray:
    """Eq. 6 with the top-(d+1) PCA subspace of the context and R̂ = mean ‖x_t‖."""
    basis = top_principal_subspace(prompts.context, task.d + 1)
    radius = np.linalg.norm(prompts.context, axis=2).mean(axis=1)
    return sphere_posterior_mean(prompts.query, basis, radius, task.sigma_z_sq)


def gmm_oracle(prompts: Prompts, task: GaussianMixture) -> np.ndarray:
    return gmm_posterior_mean(prompts.query, prompts.task["centres"], prompts.task["weights"], task.sigma0_sq, task.sigma_z_sq)


def gmm_oracle_point_masses(prompts: Prompts, task: GaussianMixture) -> np.ndarray:
    return gmm_posterior_mean_point_masses(prompts.query, prompts.task["centres"], prompts.task["weights"], task.sigma_z_sq)


def gmm_plugin(prompts: Prompts, task: GaussianMixture) -> np.ndarray:
    """Eq. 7 with centres and weights estimated by k-means (K known) on the context."""
    centres, weights = kmeans_centres(prompts.context, task.K)
    return gmm_posterior_mean(prompts.query, centres, weights, task.sigma0_sq, task.sigma_z_sq)


ESTIMATORS: dict[str, dict[str, Estimator]] = {
    "linear": {
        "oracle": linear_oracle,
        "plugin": linear_plugin,
        "empirical_covariance": linear_empirical_covariance,
        "zero": zero_predictor,
    },
    "sphere": {
        "oracle": sphere_oracle,
        "oracle_authors_orders": sphere_oracle_authors_orders,
        "plugin": sphere_plugin,
        "ideal_softmax": ideal_softmax,
        "zero": zero_predictor,
    },
    "gmm": {
        "oracle": gmm_oracle,
        "oracle_point_masses": gmm_oracle_point_masses,
        "plugin": gmm_plugin,
        "ideal_softmax": ideal_softmax,
        "zero": zero_predictor,
    },
}


def expected_loss_per_coordinate(case: str, estimator: str, task: Task) -> float:
    """Closed-form expected loss E‖x̂ − x‖²/n where one exists, else NaN.

    - linear oracle: d σ0² σ_z² / (σ0² + σ_z²), the total Bayes loss (the value printed with eq. 4,
      whose left-hand side should read E‖f_opt(X̃) − X‖², not E‖P X̃ − X‖² = d σ_z²), divided by n;
    - zero predictor: E‖x‖² = d σ0² (linear), R² (sphere), R² + n σ0² (gmm), divided by n.
    """
    if estimator == "zero":
        second_moment = {
            "linear": lambda t: t.d * t.sigma0_sq,
            "sphere": lambda t: t.radius**2,
            "gmm": lambda t: t.radius**2 + t.n * t.sigma0_sq,
        }[case](task)
        return second_moment / task.n
    if case == "linear" and estimator == "oracle":
        return task.d * task.sigma0_sq * task.sigma_z_sq / (task.sigma0_sq + task.sigma_z_sq) / task.n
    return float("nan")
