"""The continuous-depth, mean-field limit of Stage 1 (`icdenoise.studies.alltoken.empirical_bayes`), derived in
docs/alltoken.md.

With N → ∞ particles of density ρ, one layer moves a particle by η (m(z) − z), where m(z) is the
mean of ρ under the Gaussian kernel of variance 1/β around z. By Tweedie's formula
m(z) − z = (1/β) ∇ log(ρ ∗ N(0, I/β))(z), so in the time τ = ℓη/β the particles follow
dz/dτ = ∇ log(ρ_τ ∗ N(0, I/β))(z). For a Gaussian ρ_τ = N(a, Γ) this is linear and keeps ρ Gaussian:

    dΓ/dτ = −2 Γ (Γ + I/β)⁻¹,     equivalently, in t = ℓη = βτ,   dΓ/dt = −2 Γ (I + βΓ)⁻¹.

In one dimension and in τ: dv/dτ = −2v/(v + 1/β), which is −2 as β → ∞, so v = σ² − 2τ reaches 0 at
T* = σ²/2, i.e. after L* = βσ²/(2η) layers. The explainer's four statements hold together in τ = ℓη/β;
its own t = ℓη is the time of the Γ ODE (Theorem 5.1's T_β = βσ²/2 is T* read in t).

Each eigenvalue γ of Γ solves ln γ + βγ = ln γ0 + βγ0 − 2βτ in closed form with Lambert's W.
"""

from __future__ import annotations

import numpy as np
from scipy.special import lambertw


def variance_at_time(tau, initial: float, beta: float) -> np.ndarray:
    """v(τ) solving dv/dτ = −2v/(v + 1/β), v(0) = initial: v = W(βv0 e^{β(v0 − 2τ)})/β.

    The argument of W is formed in logs so that large β·v0 does not overflow."""
    tau = np.asarray(tau, dtype=float)
    log_argument = np.log(beta * initial) + beta * (initial - 2.0 * tau)
    return _lambert_w_of_exp(log_argument) / beta


def _lambert_w_of_exp(log_argument: np.ndarray) -> np.ndarray:
    """W(e^x) for real x: scipy's W below x = 500, and beyond it the asymptotic series
    W = x − ln x + ln x / x (error below 1e-5 relative there)."""
    log_argument = np.asarray(log_argument, dtype=float)
    small = log_argument < 500.0
    result = np.empty_like(log_argument)
    result[small] = np.real(lambertw(np.exp(log_argument[small])))
    large = log_argument[~small]
    result[~small] = large - np.log(large) + np.log(large) / large
    return result


def variance_infinite_beta(tau, initial: float) -> np.ndarray:
    """v(τ) = v0 − 2τ, the β → ∞ limit (dv/dτ = −2); it is 0 at T* = v0/2 and negative after, where the
    limit no longer describes particles."""
    return initial - 2.0 * np.asarray(tau, dtype=float)


def covariance_eigenvalues(t, initial_eigenvalues, beta: float) -> np.ndarray:
    """Eigenvalues of Γ(t) solving dΓ/dt = −2Γ(I + βΓ)⁻¹ in t = ℓη, from Γ(0)'s eigenvalues (the ODE
    keeps Γ's eigenvectors): shape (len(t), len(initial_eigenvalues))."""
    t = np.atleast_1d(np.asarray(t, dtype=float))
    return np.stack([variance_at_time(t / beta, gamma0, beta) for gamma0 in np.atleast_1d(initial_eigenvalues)], axis=1)


def time_to_reach(initial: float, target: float, beta: float) -> float:
    """The t = ℓη at which an eigenvalue falls from `initial` to `target` under the Γ ODE:
    (ln(γ0/s) + β(γ0 − s))/2. For γ0 = s + σ² it is T_β = βσ²/2 plus the finite-β delay ln(1 + σ²/s)/2."""
    return 0.5 * (np.log(initial / target) + beta * (initial - target))


def optimal_time(sigma_z_sq: float) -> float:
    """T* = σ²/2 in τ = ℓη/β."""
    return sigma_z_sq / 2.0
