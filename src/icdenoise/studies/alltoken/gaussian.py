"""The Gaussian check of Theorem 5.1's flow: particles from a 2-D Gaussian prior N(a, Σ₀) plus noise
σ²I, the eigenvalues of their covariance across depth against the ODE dΓ/dt = −2Γ(I + βΓ)⁻¹ in
t = ℓη, with Σ₀ and T_β = βσ²/2 marked; and Theorem 5.1's limit as a trend: how far the covariance is from
Σ₀ at T_β for several β."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from icdenoise.studies.alltoken.empirical_bayes import DTYPE, particle_flow
from icdenoise.studies.alltoken.meanfield import covariance_eigenvalues, time_to_reach


def gaussian_particles(block: dict, seed: int) -> torch.Tensor:
    """(1, tokens, 2) noisy tokens y = a + Σ₀^{1/2} g + σ g′, Σ₀ diagonal with the configured eigenvalues."""
    rng = np.random.default_rng([block["seed"], seed])
    spread = np.sqrt(np.asarray(block["covariance_eigenvalues"], dtype=float) + block["sigma_z_sq"])
    tokens = np.asarray(block["mean"], dtype=float) + spread * rng.standard_normal((block["tokens"], len(spread)))
    return torch.as_tensor(tokens[None], dtype=DTYPE)


def gaussian_table(block: dict) -> pd.DataFrame:
    """Columns seed, depth, t, component (0 = largest), eigenvalue (of the particles' covariance), ode
    (from the particles' own initial eigenvalues), prior (Σ₀'s), t_beta, t_reach (the ODE's time to Σ₀)."""
    beta, eta, sigma_z_sq = block["beta"], block["eta"], block["sigma_z_sq"]
    t_beta = beta * sigma_z_sq / 2.0
    depths = list(range(0, int(np.ceil(block["max_time_over_T_beta"] * t_beta / eta)) + 1, block["record_every"]))
    prior = np.sort(np.asarray(block["covariance_eigenvalues"], dtype=float))[::-1]
    rows = []
    for seed in block["seeds"]:
        initial = None
        for depth, particles in particle_flow(gaussian_particles(block, seed), beta, eta, depths):
            eigenvalues = np.sort(np.linalg.eigvalsh(np.cov(particles[0].double().numpy().T)))[::-1]
            initial = eigenvalues if initial is None else initial
            ode = covariance_eigenvalues(depth * eta, initial, beta)[0]
            for component, value in enumerate(eigenvalues):
                rows.append({"seed": seed, "depth": depth, "t": depth * eta, "component": component, "eigenvalue": value,
                             "ode": ode[component], "prior": prior[component], "t_beta": t_beta,
                             "t_reach": time_to_reach(prior[component] + sigma_z_sq, prior[component], beta)})
    return pd.DataFrame(rows).assign(beta=beta, eta=eta, sigma_z_sq=sigma_z_sq)


def trend_table(block: dict) -> pd.DataFrame:
    """Per β of `trend_betas` and seed: the particles (as in `gaussian_table`) flowed to the depth closest to
    T_β = βσ²/2 at step η, and the largest |λ/λ₀ − 1| over their covariance's eigenvalues there. Columns beta,
    seed, depth, t, t_beta, largest_error."""
    sigma_z_sq, eta = block["sigma_z_sq"], block["eta"]
    prior = np.sort(np.asarray(block["covariance_eigenvalues"], dtype=float))[::-1]
    rows = []
    for beta in block["trend_betas"]:
        t_beta = beta * sigma_z_sq / 2.0
        depth = int(round(t_beta / eta))
        for seed in block["seeds"]:
            (_, particles), = particle_flow(gaussian_particles(block, seed), beta, eta, [depth])
            eigenvalues = np.sort(np.linalg.eigvalsh(np.cov(particles[0].double().numpy().T)))[::-1]
            rows.append({"beta": beta, "seed": seed, "depth": depth, "t": depth * eta, "t_beta": t_beta,
                         "largest_error": float(np.abs(eigenvalues / prior - 1).max())})
    return pd.DataFrame(rows)
