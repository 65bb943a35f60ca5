"""Corruptions: how a prompt's clean tokens become what the network sees, and what it must recover.

A corruption draws its noise from the prompt's own generator, right after the task drew the clean
tokens, so a prompt depends only on (seed, index) (see `icdenoise.maths.cases`).

- ``query`` (Section 2.1, eq. 1): L clean context tokens and a query x̃ = x_{L+1} + z,
  z ~ N(0, σ_z² I_n); the target is x_{L+1}.
- ``all_tokens``: every token is noisy, y_i = x_i + z_i with z_i ~ N(0, σ_z² I_n) i.i.d., and every
  token is a target (the all-token setting of Smart et al. 2026).
- ``off_subspace``: the noise of Wang et al. (2025), Definition 2.1, on a `low_rank_mixture` task:
  token i of subspace k gets Σ_{j≠k} U_j e_{i,j}, e_{i,j} ~ N(0, δ² I_p) with δ² = σ_z², noise on
  every other subspace and none on its own; every token is noisy and a target, as for all_tokens.

A corruption reads the prompt's task parameters (the bases, for ``off_subspace``) besides its tokens.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np


@dataclass(frozen=True)
class Corruption:
    """Gaussian noise of variance σ_z² per coordinate on some of a prompt's tokens."""

    sigma_z_sq: float

    name: ClassVar[str]

    @classmethod
    def from_config(cls, block: dict) -> "Corruption":
        return cls(sigma_z_sq=block["sigma_z_sq"])

    def clean_tokens(self, context_length: int) -> int:
        """How many clean tokens a prompt of context length L is made from."""
        raise NotImplementedError

    def corrupt(self, rng: np.random.Generator, tokens: np.ndarray, task: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(context, query, target) of one prompt from its clean tokens and its task parameters."""
        raise NotImplementedError


@dataclass(frozen=True)
class QueryNoise(Corruption):
    """Eq. 1: context x_1..x_L clean, query x̃ = x_{L+1} + z, target x_{L+1}."""

    name: ClassVar[str] = "query"

    def clean_tokens(self, context_length):
        return context_length + 1

    def corrupt(self, rng, tokens, task):
        target = tokens[-1]
        noise = np.sqrt(self.sigma_z_sq) * rng.standard_normal(tokens.shape[1])
        return tokens[:-1], target + noise, target


@dataclass(frozen=True)
class AllTokenNoise(Corruption):
    """y_i = x_i + z_i for every token; the noisy tokens are context and queries, the clean ones targets."""

    name: ClassVar[str] = "all_tokens"

    def clean_tokens(self, context_length):
        return context_length

    def corrupt(self, rng, tokens, task):
        noisy = tokens + np.sqrt(self.sigma_z_sq) * rng.standard_normal(tokens.shape)
        return noisy, noisy, tokens


@dataclass(frozen=True)
class OffSubspaceNoise(Corruption):
    """Definition 2.1's noise: z_i = x_i + Σ_{j≠k} U_j e_{i,j}, e_{i,j} ~ N(0, δ² I_p), δ² = σ_z², for a
    clean token x_i = U_k a_i. A token's subspace k is the one that holds it (its other projections
    are zero), so the corruption needs only the task's ``bases`` (K, n, p)."""

    name: ClassVar[str] = "off_subspace"

    def clean_tokens(self, context_length):
        return context_length

    def corrupt(self, rng, tokens, task):
        bases = task["bases"]
        coordinates = np.einsum("knp,in->ikp", bases, tokens)  # (count, K, p)
        own = np.square(coordinates).sum(-1).argmax(-1)
        noise = np.sqrt(self.sigma_z_sq) * rng.standard_normal(coordinates.shape)
        noise[np.arange(len(tokens)), own] = 0.0
        noisy = tokens + np.einsum("knp,ikp->in", bases, noise)
        return noisy, noisy, tokens


CORRUPTIONS: dict[str, type[Corruption]] = {cls.name: cls for cls in (QueryNoise, AllTokenNoise, OffSubspaceNoise)}


def make_corruption(block: dict) -> Corruption:
    """The corruption registered under ``block["kind"]``."""
    name = block["kind"]
    if name not in CORRUPTIONS:
        raise KeyError(f"unknown corruption {name!r}; registered corruptions: {sorted(CORRUPTIONS)}")
    return CORRUPTIONS[name].from_config(block)
