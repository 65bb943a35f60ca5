"""The study's known priors as tasks, and noisy contexts drawn from them, seeded per draw."""

from __future__ import annotations

import numpy as np
import torch

from icdenoise.maths.tasks import FixedMixture
from icdenoise.studies.alltoken.empirical_bayes import DTYPE


def mixture(centres: list, sigma0_sq: float = 0.0) -> FixedMixture:
    """The equal-weight mixture with these centres (point masses at σ0² = 0)."""
    return FixedMixture(n=len(centres[0]), centres=tuple(tuple(map(float, c)) for c in centres), sigma0_sq=sigma0_sq)


def noisy_contexts(prior: FixedMixture, contexts: int, tokens: int, sigma_z_sq: float, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(clean, noisy) tokens, each (contexts, tokens, n); context c from np.random.default_rng([seed, c])."""
    clean, noisy = [], []
    for index in range(contexts):
        rng = np.random.default_rng([seed, index])
        x, _ = prior.sample_tokens(rng, tokens)
        clean.append(x)
        noisy.append(x + np.sqrt(sigma_z_sq) * rng.standard_normal(x.shape))
    return torch.as_tensor(np.stack(clean), dtype=DTYPE), torch.as_tensor(np.stack(noisy), dtype=DTYPE)
