"""Stage 1 across depth: particle positions of a ±2 prior for several β (with the clusters formed),
and the variance of particles from a point mass against the mean-field ODE (docs/alltoken.md).

Every β runs with η_β = β·T*/layers_per_T_star, so one layer is the same step Δτ = η/β of the
mean-field time τ = ℓη/β for every β, and L* = βσ²/(2η_β) is the same number of layers."""

from __future__ import annotations

import numpy as np
import pandas as pd

from icdenoise.studies.alltoken.empirical_bayes import count_clusters, particle_flow
from icdenoise.studies.alltoken.meanfield import optimal_time, variance_at_time, variance_infinite_beta
from icdenoise.studies.alltoken.priors import mixture, noisy_contexts


def step_size(beta: float, sigma_z_sq: float, layers_per_t_star: int) -> float:
    """η_β = β T*/layers_per_T_star: `layers_per_T_star` layers reach τ = T* = σ²/2."""
    return beta * optimal_time(sigma_z_sq) / layers_per_t_star


def particle_flow_table(block: dict) -> pd.DataFrame:
    """Columns beta, eta, depth, tau, particle, position, clean, clusters (at that depth), theory_depth."""
    prior = mixture(block["centres"])
    clean, noisy = noisy_contexts(prior, 1, block["tokens"], block["sigma_z_sq"], block["seed"])
    frames = []
    for beta in block["betas"]:
        eta = step_size(beta, block["sigma_z_sq"], block["layers_per_T_star"])
        for depth, particles in particle_flow(noisy, beta, eta, list(range(block["max_depth"] + 1))):
            positions = particles[0, :, 0].double().numpy()
            frames.append(pd.DataFrame({
                "beta": beta, "eta": eta, "depth": depth, "tau": depth * eta / beta, "particle": np.arange(len(positions)),
                "position": positions, "clean": clean[0, :, 0].double().numpy(),
                "clusters": count_clusters(positions, block["cluster_gap"]), "theory_depth": block["layers_per_T_star"],
                "sigma_z_sq": block["sigma_z_sq"],
            }))
    return pd.concat(frames, ignore_index=True)


def flow_replicates_table(block: dict) -> pd.DataFrame:
    """The particle-flow figure's flow again from each of `replicate_seeds` (one context of `tokens` noisy
    tokens per seed, the figure's prior, noise, β's and step sizes), the particles at L* only: columns seed,
    beta, depth, particle, position. The claims count their clusters, so that no verdict rests on one draw."""
    prior = mixture(block["centres"])
    rows = []
    for seed in block["replicate_seeds"]:
        _, noisy = noisy_contexts(prior, 1, block["tokens"], block["sigma_z_sq"], seed)
        for beta in block["betas"]:
            eta = step_size(beta, block["sigma_z_sq"], block["layers_per_T_star"])
            ((depth, particles),) = particle_flow(noisy, beta, eta, [block["layers_per_T_star"]])
            positions = particles[0, :, 0].double().numpy()
            rows.append(pd.DataFrame({"seed": seed, "beta": beta, "depth": depth, "particle": np.arange(len(positions)),
                                      "position": positions}))
    return pd.concat(rows, ignore_index=True)


def variance_table(block: dict) -> pd.DataFrame:
    """Particles from a point mass at 0 (so the noisy tokens are N(0, σ²)): columns beta, eta, seed,
    depth, tau, variance (of the particles), clusters, ode (dv/dτ = −2v/(v + 1/β)), infinite_beta (σ² − 2τ), t_star."""
    sigma_z_sq, per_t_star = block["sigma_z_sq"], block["layers_per_T_star"]
    depths = list(range(int(round(block["max_time_over_T_star"] * per_t_star)) + 1))
    rows = []
    for seed in block["seeds"]:
        _, noisy = noisy_contexts(mixture([[0.0]]), 1, block["tokens"], sigma_z_sq, seed)
        for beta in block["betas"]:
            eta = step_size(beta, sigma_z_sq, per_t_star)
            for depth, particles in particle_flow(noisy, beta, eta, depths):
                positions = particles[0, :, 0].double().numpy()
                rows.append({"beta": beta, "eta": eta, "seed": seed, "depth": depth, "tau": depth * eta / beta,
                             "variance": positions.var(), "clusters": count_clusters(positions, block["cluster_gap"])})
    table = pd.DataFrame(rows)
    initial = table[table["depth"] == 0].set_index(["beta", "seed"])["variance"]
    table["ode"] = [variance_at_time(tau, initial[(beta, seed)], beta) for tau, beta, seed in zip(table["tau"], table["beta"], table["seed"])]
    table["infinite_beta"] = variance_infinite_beta(table["tau"], sigma_z_sq)
    table["t_star"] = optimal_time(sigma_z_sq)
    return table
