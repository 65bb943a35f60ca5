"""Slide 11's one-layer transformer for factual recall: multi-head softmax attention from the end token,
optionally followed by a ReLU MLP, on frozen random embeddings, read out by frozen random answer embeddings."""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn

from icdenoise.studies.memory.embeddings import gaussian_embeddings, generator
from icdenoise.studies.memory.factual.task import FactualTask

EMBEDDINGS = 12  # purpose code of the embeddings' generator (facts 11, initial weights 13)


@dataclass(frozen=True)
class FactualEmbeddings:
    """Input embeddings e_z of every input token (subjects, relations, noise, EOS) and output embeddings u_a of the
    R·A answers, i.i.d. N(0, 1/d) entries, never trained. No positional embeddings (slide 10's task ignores order)."""

    tokens: torch.Tensor   # (S + R + noise + 1, d)
    outputs: torch.Tensor  # (R·A, d)


def factual_embeddings(task: FactualTask, d: int, seed: int) -> FactualEmbeddings:
    """The embeddings of `task` in R^d, drawn from `seed` (the block's) and the task's sizes and d."""
    rng = generator(seed, EMBEDDINGS, task.subjects, task.relations, task.answers_per_relation, task.noise, d)
    return FactualEmbeddings(gaussian_embeddings(rng, task.vocabulary, d), gaussian_embeddings(rng, task.answer_count, d))


def trained_parameters(d: int, heads: int, head_dim: int, width: int) -> int:
    """4·H·d·d_h + 2·m·d: W_Q, W_K, W_V (d_h × d) and W_O (d × d_h) per head, W_1 (m × d) and W_2 (d × m)."""
    return 4 * heads * d * head_dim + 2 * width * d


class FactualTransformer(nn.Module):
    """h = x_EOS + Σ_h W_O^h Σ_t β^h_t W_V^h x_t with β^h = softmax_t((W_K^h x_t)ᵀ(W_Q^h x_EOS) / √d_h) over all
    T + 1 positions (EOS attends to itself too); with width m > 0 then h ← h + W_2 ReLU(W_1 h); logits u_aᵀ h over
    the R·A answers. x_t = e_{z_t}; no positional embeddings, no normalisation, no biases.

    Init: every trained matrix has i.i.d. N(0, 1/fan-in) entries - W_Q, W_K, W_V and W_1 N(0, 1/d), W_O
    N(0, 1/d_h), W_2 N(0, 1/m) - from the run's own generator. The 1/√d_h score scaling is the usual one; at
    init the scores are O(1/d) and the attention nearly uniform."""

    def __init__(self, embeddings: FactualEmbeddings, heads: int, head_dim: int, width: int, rng: torch.Generator):
        super().__init__()
        d = embeddings.tokens.shape[1]
        self.heads, self.head_dim, self.width = heads, head_dim, width
        self.register_buffer("token_embeddings", embeddings.tokens)
        self.register_buffer("output_embeddings", embeddings.outputs)
        self.query = nn.Parameter(gaussian_embeddings(rng, heads * head_dim, d))  # rows h·d_h..: W_Q^h
        self.key = nn.Parameter(gaussian_embeddings(rng, heads * head_dim, d))
        self.value = nn.Parameter(gaussian_embeddings(rng, heads * head_dim, d))
        self.output = nn.Parameter(gaussian_embeddings(rng, d, heads * head_dim) * math.sqrt(d / head_dim))  # [W_O^1 … W_O^H]
        if width > 0:
            self.up = nn.Parameter(gaussian_embeddings(rng, width, d))  # W_1
            self.down = nn.Parameter(gaussian_embeddings(rng, d, width) * math.sqrt(d / width))  # W_2

    def hidden(self, tokens: torch.Tensor) -> torch.Tensor:
        """(B, T + 1) tokens, EOS last → (B, d) h at the end token."""
        x = self.token_embeddings[tokens]  # (B, L, d)
        batch, length, _ = x.shape
        query = (x[:, -1] @ self.query.T).view(batch, self.heads, self.head_dim)
        keys = (x @ self.key.T).view(batch, length, self.heads, self.head_dim)
        values = (x @ self.value.T).view(batch, length, self.heads, self.head_dim)
        scores = torch.einsum("blhk,bhk->bhl", keys, query) / math.sqrt(self.head_dim)
        attention = torch.softmax(scores, dim=-1)
        heads = torch.einsum("bhl,blhk->bhk", attention, values).reshape(batch, self.heads * self.head_dim)
        h = x[:, -1] + heads @ self.output.T
        if self.width > 0:
            h = h + torch.relu(h @ self.up.T) @ self.down.T
        return h

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """(B, T + 1) tokens → (B, R·A) logits u_aᵀ h."""
        return self.hidden(tokens) @ self.output_embeddings.T
