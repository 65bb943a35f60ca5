"""The explainer's first figure: 24 noisy tokens of a ±2 two-point prior, a query y* near +1.4, and
its Stage-2 estimate x̂* at depth 0 and after `depth` layers, over many draws of the other tokens,
with the Stage-2 energy E(Z; q) = −(1/β_c) log Σ_j exp(−β_c/2 ‖q − z_j‖²) of one draw.

The explainer does not say whether the query is one of the particles Stage 1 refines. The figure's tables
take it as one (the all-token setting: every token is both a particle and a query), and give beside it, for
the same draws, the estimate with the query apart: Stage 1 refines the other tokens only and Stage 2 queries
them with y*."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from icdenoise.studies.alltoken.empirical_bayes import DTYPE, particle_flow, posterior_mean_under_particles
from icdenoise.studies.alltoken.priors import mixture, noisy_contexts


def stage2_energy(queries: np.ndarray, particles: np.ndarray, sigma_z_sq: float) -> np.ndarray:
    """E(Z; q) = −(1/β_c) log Σ_j exp(−β_c/2 (q − z_j)²) for 1-D particles, β_c = 1/σ²; its gradient
    step q ← q − σ² ∇E is the Stage-2 posterior mean (the dense associative memory view)."""
    from scipy.special import logsumexp

    beta_c = 1.0 / sigma_z_sq
    return -logsumexp(-beta_c / 2 * (queries[:, None] - particles[None, :]) ** 2, axis=1) / beta_c


def before_after_tables(block: dict) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(estimates: draw, depth, estimate, estimate_query_apart, ...; tokens of draw 0: depth, token, position,
    clean, is_query; energy of draw 0: depth, q, energy). The query is the last token of every context and one of
    its particles (`estimate`); `estimate_query_apart` is x̂* from the same draw's other tokens alone, flowed
    without the query."""
    prior = mixture(block["centres"])
    clean, noisy = noisy_contexts(prior, block["draws"], block["tokens"] - 1, block["sigma_z_sq"], block["seed"])
    query = torch.full((block["draws"], 1, 1), block["query"], dtype=DTYPE)
    noisy = torch.cat([noisy, query], dim=1)
    clean = torch.cat([clean, torch.full_like(query, block["query_clean"])], dim=1)
    estimates, tokens, energy = [], [], []
    grid = np.linspace(-block["energy_extent"], block["energy_extent"], block["energy_points"])
    depths = [0, block["depth"]]
    apart = particle_flow(noisy[:, :-1], block["beta"], block["eta"], depths)  # the other tokens alone
    for (depth, particles), (_, others) in zip(particle_flow(noisy, block["beta"], block["eta"], depths), apart):
        estimate = posterior_mean_under_particles(query, particles, block["sigma_z_sq"])[:, 0, 0].double().numpy()
        estimate_apart = posterior_mean_under_particles(query, others, block["sigma_z_sq"])[:, 0, 0].double().numpy()
        estimates.append(pd.DataFrame({"draw": np.arange(block["draws"]), "depth": depth, "estimate": estimate,
                                       "estimate_query_apart": estimate_apart}))
        positions = particles[0, :, 0].double().numpy()
        tokens.append(pd.DataFrame({"depth": depth, "token": np.arange(block["tokens"]), "position": positions,
                                    "clean": clean[0, :, 0].double().numpy(), "is_query": np.arange(block["tokens"]) == block["tokens"] - 1}))
        energy.append(pd.DataFrame({"depth": depth, "q": grid, "energy": stage2_energy(grid, positions, block["sigma_z_sq"])}))
    constants = {"beta": block["beta"], "eta": block["eta"], "sigma_z_sq": block["sigma_z_sq"], "query": block["query"],
                 "query_clean": block["query_clean"]}
    return (pd.concat(estimates, ignore_index=True).assign(**constants), pd.concat(tokens, ignore_index=True),
            pd.concat(energy, ignore_index=True).assign(**constants))
