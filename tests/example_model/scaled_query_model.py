"""A model of one's own, outside the package: named in a config as
``scaled_query_model:ScaledQuery`` with this folder on PYTHONPATH (tests/integration/test_user_model.py).

x̂ = a x̃: the noisy query scaled by one learned number per seed. On the linear case its best scale is
the shrinkage σ0²/(σ0²+σ_z²) of the query's subspace part, spread over all n coordinates; it reads no
context, so every context-reading model should beat it.
"""

from __future__ import annotations

import torch

from icdenoise.maths.models import EnsembleModel


class ScaledQuery(EnsembleModel):
    denoises = frozenset({"query"})

    @classmethod
    def initial_parameters(cls, rng, n, **options):
        return {"scale": rng.uniform(-1.0, 1.0, (1, 1))}

    @staticmethod
    def prepare(context: torch.Tensor) -> torch.Tensor:
        return context[:, :1, :1]  # nothing of the context is used; a small per-prompt tensor keeps minibatching uniform

    def forward(self, features: torch.Tensor, query: torch.Tensor) -> torch.Tensor:
        return self.weights["scale"] * query  # (S, 1, 1) × (B, n) or (S, B, n) → (S, B, n)


class NoForward(EnsembleModel):
    """Initialised and prepared as ScaledQuery is, but without `forward`: refused before any job."""

    denoises = ScaledQuery.denoises
    initial_parameters = ScaledQuery.__dict__["initial_parameters"]
    prepare = ScaledQuery.__dict__["prepare"]
