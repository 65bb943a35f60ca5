"""Slide 11's one-layer transformer for factual recall: multi-head softmax attention from the end token,
optionally followed by a ReLU MLP, on frozen random embeddings, read out by frozen random answer embeddings."""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn
from torch.nn.functional import embedding

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
        """(B, T + 1) tokens, EOS last → (B, d) h at the end token.

        Grouped for speed, not as the class docstring reads: the score of head h at position t is
        x_tᵀ (W_K^hᵀ W_Q^h) x_EOS and its output W_O^h W_V^h Σ_t β^h_t x_t, so every product is a (batched) matrix
        product over d instead of an einsum over the d_h = 4 head coordinates. The value is the same up to
        float32 rounding (tests/unit/studies/memory/test_memory_factual.py checks it against a per-head loop)."""
        x = embedding(tokens, self.token_embeddings)  # (B, L, d): token_embeddings[tokens]
        batch, _, d = x.shape
        heads, head_dim = self.heads, self.head_dim
        end = x[:, -1]
        key_query = self.key.view(heads, head_dim, d).transpose(1, 2) @ self.query.view(heads, head_dim, d)  # (H, d, d)
        looking_for = (end @ key_query.reshape(heads * d, d).T).view(batch, heads, d)  # [b, h] = W_K^hᵀ W_Q^h x_EOS
        scores = torch.bmm(x, looking_for.transpose(1, 2)) / math.sqrt(head_dim)  # (B, L, H)
        attention = torch.softmax(scores, dim=1)
        mixed = torch.bmm(attention.transpose(1, 2), x).reshape(batch, heads * d)  # [b, h] = Σ_t β^h_t x_t
        output_value = self.output.view(d, heads, head_dim).transpose(0, 1) @ self.value.view(heads, head_dim, d)
        h = end + mixed @ output_value.transpose(1, 2).reshape(heads * d, d)  # Σ_h W_O^h W_V^h (Σ_t β^h_t x_t)
        if self.width > 0:
            h = h + torch.relu(h @ self.up.T) @ self.down.T
        return h

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """(B, T + 1) tokens → (B, R·A) logits u_aᵀ h."""
        return self.hidden(tokens) @ self.output_embeddings.T
