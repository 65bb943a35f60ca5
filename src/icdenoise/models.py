"""One-layer attention denoisers of Section 3 as ensembles of S independent weight sets.

Both models have no residual connection, exclude the query from keys and values, and hold
W_KQ, W_PV of shape (S, n, n): slice s is the model of seed s. Because the training loss is a
sum of per-seed losses and Adam is element-wise, training the stacked ensemble is the same as
training S models one by one.

Each model turns a prompt's context into its `features` once (``prepare``), then predicts from
features and query. Features are either shared by all seeds, with shape (B, ...), as when the
whole train or test set is scored, or per seed, with shape (S, B, ...), as when each seed draws
its own minibatch.
"""

from __future__ import annotations

from typing import ClassVar

import torch
from torch import nn


class AttentionEnsemble(nn.Module):
    """Common parameters: W_KQ, W_PV of shape (S, n, n)."""

    name: ClassVar[str]

    def __init__(self, w_kq: torch.Tensor, w_pv: torch.Tensor):
        super().__init__()
        self.w_kq = nn.Parameter(w_kq.clone())
        self.w_pv = nn.Parameter(w_pv.clone())

    @staticmethod
    def prepare(context: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    def _apply_value(self, mixed: torch.Tensor) -> torch.Tensor:
        """W_PV applied to (S, B, n) vectors, as one (S, n, n) @ (S, n, B) batched matmul."""
        return (self.w_pv @ mixed.transpose(1, 2)).transpose(1, 2)

    def _key_query(self, query: torch.Tensor) -> torch.Tensor:
        """W_KQ x̃ for every seed: query (B, n) or (S, B, n) → (S, B, n)."""
        return (self.w_kq @ query.transpose(-1, -2)).transpose(1, 2)


class LinearAttention(AttentionEnsemble):
    """Eq. 11: x̂ = (1/L) W_PV X Xᵀ W_KQ x̃ = W_PV C W_KQ x̃, C = (1/L) X Xᵀ the context's second moment.

    Features are C, shape (..., n, n): the model needs nothing else from the context.
    """

    name: ClassVar[str] = "linear"

    @staticmethod
    def prepare(context: torch.Tensor) -> torch.Tensor:
        """context (N, L, n) → C (N, n, n)."""
        return context.transpose(1, 2) @ context / context.shape[1]

    def forward(self, features: torch.Tensor, query: torch.Tensor) -> torch.Tensor:
        key_query = self._key_query(query)  # (S, B, n)
        mixed = (features * key_query.unsqueeze(-2)).sum(-1)  # C (…, B, n, n) times (S, B, 1, n) → (S, B, n)
        return self._apply_value(mixed)


class SoftmaxAttention(AttentionEnsemble):
    """Eq. 12: x̂ = W_PV X softmax(Xᵀ W_KQ x̃), no temperature.

    Features are the context stored key-major, Xᵀ of shape (..., n, L): then both the scores
    (W_KQ x̃)ᵀ Xᵀ and the mixture softmax(·) X are row-vector-times-matrix products with the long
    axis L contiguous, several times faster on the CPU than the token-major layout. With shared
    features every seed is scored against the batch in one matmul, (B, S, n) @ (B, n, L).
    """

    name: ClassVar[str] = "softmax"

    @staticmethod
    def prepare(context: torch.Tensor) -> torch.Tensor:
        """context (N, L, n) → Xᵀ (N, n, L), contiguous."""
        return context.transpose(1, 2).contiguous()

    def forward(self, features: torch.Tensor, query: torch.Tensor) -> torch.Tensor:
        key_query = self._key_query(query)  # (S, B, n)
        if features.dim() == 3:
            scores = key_query.transpose(0, 1) @ features  # (B, S, n) @ (B, n, L) → (B, S, L)
            weights = torch.softmax(scores, dim=-1)
            mixed = (weights @ features.transpose(1, 2)).transpose(0, 1)  # (B, S, n) → (S, B, n)
        else:
            scores = key_query.unsqueeze(-2) @ features  # (S, B, 1, n) @ (S, B, n, L) → (S, B, 1, L)
            weights = torch.softmax(scores, dim=-1)
            mixed = (weights @ features.transpose(-1, -2)).squeeze(-2)  # (S, B, n)
        return self._apply_value(mixed)


MODELS: dict[str, type[AttentionEnsemble]] = {cls.name: cls for cls in (LinearAttention, SoftmaxAttention)}
