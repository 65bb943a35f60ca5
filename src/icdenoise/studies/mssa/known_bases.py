"""Unrolled MSSA with each prompt's own bases, as a denoiser of `low_rank_mixture` prompts for the
leaderboard: the prompt's tokens through `layers` steps of eqs. 3-4, read out as the last layer over
the gain (1 + ητ)^layers (`SubspaceSelfAttention.forward`). It knows the bases, as an oracle does,
but not each token's subspace."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from icdenoise.maths.denoisers import Denoiser
from icdenoise.maths.models import SubspaceSelfAttention
from icdenoise.maths.prompts import Prompts


@dataclass
class KnownBasesMSSA(Denoiser):
    layers: int
    eta: float
    tau: float
    phi: str

    def predict(self, prompts: Prompts) -> np.ndarray:
        """(1, N, L, n): every token's estimate. Prompt b runs as ensemble member b of one model, with its bases."""
        bases = torch.as_tensor(prompts.task["bases"])  # (N, K, n, p)
        model = SubspaceSelfAttention.from_bases(bases, self.layers, self.eta, self.tau, self.phi)
        with torch.no_grad():
            estimate = model(torch.as_tensor(prompts.context)[:, None], None)  # (N, 1, L, n)
        return estimate[:, 0].numpy()[None]


def known_bases_denoisers(layers: int, eta: float, tau: float) -> dict[str, Denoiser]:
    """Both forms of φ, named for the leaderboard."""
    return {f"mssa_known_bases_{phi}": KnownBasesMSSA(layers, eta, tau, phi) for phi in SubspaceSelfAttention.PHIS}


def leaderboard_denoisers(case: dict, layers: int, eta: float, tau: float) -> dict[str, Denoiser]:
    """The denoisers the leaderboard scores on a low-rank mixture `case` (its config block): both forms of φ."""
    return known_bases_denoisers(layers, eta, tau)
