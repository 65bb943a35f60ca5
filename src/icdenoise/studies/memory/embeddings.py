"""Random embeddings of the associative-memory study: every input, output and positional embedding has
i.i.d. N(0, 1/d) entries (Bietti 2025, slide 3: "fixed to random init N(0, 1/d)"), drawn from a torch
generator that a tuple of integers names, so that a table row is reproducible from its keys alone."""

from __future__ import annotations

import numpy as np
import torch


def generator(*keys: int) -> torch.Generator:
    """A CPU torch generator seeded from the keys (e.g. seed, d, a purpose code) through numpy's SeedSequence."""
    state = np.random.SeedSequence([int(key) for key in keys]).generate_state(1, dtype=np.uint64)[0]
    return torch.Generator().manual_seed(int(state) & 0x7FFF_FFFF_FFFF_FFFF)


def gaussian_embeddings(rng: torch.Generator, count: int, d: int) -> torch.Tensor:
    """`count` embeddings in R^d as the rows of a (count, d) float32 tensor, entries N(0, 1/d)."""
    return torch.randn(count, d, generator=rng, dtype=torch.float32) / np.sqrt(d)
