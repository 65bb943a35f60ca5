"""Slides 18-19's attention-only transformer on frozen random embeddings (Bietti et al. 2023, "Birth of a
transformer"), and its loss and hits on the output positions."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn
from torch.nn.functional import embedding

from icdenoise.studies.memory.embeddings import gaussian_embeddings, generator
from icdenoise.studies.memory.induction.task import output_positions

LAYER_COUNTS = (1, 2)
NO_OUTPUTS = "no trigger occurs twice in these sequences: raise length or batch"
EMBEDDINGS = 1  # purpose code of the embeddings' generator (independent of the bigram model's, 2, and a run's, 3-5)


@dataclass(frozen=True)
class FrozenEmbeddings:
    """Slides 18-19: input embeddings e_z, positional p_t, output u_v and the first layer's remapping W_OV¹, all
    with i.i.d. N(0, 1/d) entries and never trained."""

    tokens: torch.Tensor     # (N, d); row z is e_z
    positions: torch.Tensor  # (T, d); row t is p_t
    outputs: torch.Tensor    # (N, d); row v is u_v
    remapping: torch.Tensor  # (d, d); W_OV¹ of the 2-layer model, ẽ_k = W_OV¹ e_k

    def to(self, device: torch.device) -> FrozenEmbeddings:
        return FrozenEmbeddings(*(tensor.to(device) for tensor in
                                  (self.tokens, self.positions, self.outputs, self.remapping)))


def frozen_embeddings(block: dict) -> FrozenEmbeddings:
    """The block's embeddings, drawn from `block["seed"]` alone: every run of the block shares them."""
    rng = generator(block["seed"], EMBEDDINGS, block["d"])
    vocabulary, length, d = block["vocabulary"], block["length"], block["d"]
    tokens = gaussian_embeddings(rng, vocabulary, d)
    positions = gaussian_embeddings(rng, length, d)
    outputs = gaussian_embeddings(rng, vocabulary, d)
    remapping = gaussian_embeddings(rng, d, d)
    return FrozenEmbeddings(tokens, positions, outputs, remapping)


class AttentionOnlyTransformer(nn.Module):
    """Birth of a transformer's model (slide 19): residual stream x_t = e_{z_t} + p_t; each layer adds
    W_OV Σ_{s ≤ t} β_s x_s with β = softmax_s(x_sᵀ W_KQ x_t), single head, no normalisation, no MLP; logits
    u_vᵀ x_t.

    The 2-layer model trains W_KQ¹, W_KQ², W_OV² and keeps W_OV¹ the frozen random remapping (slide 20: "Train
    only W_KQ¹, W_KQ², W_OV²"). The 1-layer model trains W_KQ¹ and W_OV¹: with W_OV¹ frozen its only layer could
    write nothing that the output embeddings read. Trained matrices start with i.i.d. N(0, 1/d) entries (the
    init of slide 3), from the run's own generator."""

    def __init__(self, embeddings: FrozenEmbeddings, layers: int, rng: torch.Generator):
        super().__init__()
        if layers not in LAYER_COUNTS:
            raise ValueError(f"layers must be one of {LAYER_COUNTS}, got {layers}")
        d = embeddings.tokens.shape[1]
        self.layers = layers
        self.register_buffer("token_embeddings", embeddings.tokens)
        self.register_buffer("position_embeddings", embeddings.positions)
        self.register_buffer("output_embeddings", embeddings.outputs)
        trained = ("wkq1", "wov1") if layers == 1 else ("wkq1", "wkq2", "wov2")
        self.trained = nn.ParameterDict({name: nn.Parameter(gaussian_embeddings(rng, d, d)) for name in trained})
        if layers == 2:
            self.register_buffer("wov1", embeddings.remapping)

    def matrix(self, name: str) -> torch.Tensor | None:
        """W_KQ^l or W_OV^l by name (wkq1, wov1, wkq2, wov2), trained or frozen; None where the model has no such layer."""
        if name in self.trained:
            return self.trained[name]
        return dict(self.named_buffers()).get(name)

    def attend(self, layer: int, keys: torch.Tensor, queries: torch.Tensor, query_positions: torch.Tensor) -> torch.Tensor:
        """Layer `layer` at the given query positions: x_t + W_OV Σ_{s ≤ t} β_s x_s, β = softmax_s(x_sᵀ W_KQ x_t), for
        keys (B, T, d) holding x_1..x_T, queries (B, Q, d) holding the x_t, and their positions t (B or 1, Q)."""
        key_query, output_value = self.matrix(f"wkq{layer}"), self.matrix(f"wov{layer}")
        scores = (queries @ key_query.T) @ keys.transpose(1, 2)  # [b, q, s] = x_sᵀ W_KQ x_t
        causal = torch.arange(keys.shape[1], device=keys.device) <= query_positions[..., None]  # [b, q, s]: s ≤ t
        attention = torch.softmax(scores.masked_fill(~causal, float("-inf")), dim=-1)
        return queries + (attention @ keys) @ output_value.T

    def first_layer(self, tokens: torch.Tensor) -> torch.Tensor:
        """(B, T) tokens → (B, T, d): the first layer at every position, x_t + W_OV¹ Σ_{s ≤ t} β_s x_s with
        x_t = e_{z_t} + p_t, as `attend` computes it but with each product W x_t taken as W e_{z_t} + W p_t: the N
        token and T position embeddings are multiplied once and gathered, instead of all B·T residual vectors.
        Equal to `attend(1, x, x, positions)` up to float32 rounding (tests/unit/studies/memory/test_memory_induction.py)."""
        length = tokens.shape[1]
        x = embedding(tokens, self.token_embeddings) + self.position_embeddings[:length]

        def times(matrix: torch.Tensor) -> torch.Tensor:  # (B, T, d): row t is W x_t = W e_{z_t} + W p_t
            return embedding(tokens, self.token_embeddings @ matrix.T) + self.position_embeddings[:length] @ matrix.T

        scores = times(self.matrix("wkq1")) @ x.transpose(1, 2)  # [b, t, s] = x_sᵀ W_KQ¹ x_t
        positions = torch.arange(length, device=tokens.device)
        attention = torch.softmax(scores.masked_fill(positions[None, :] > positions[:, None], float("-inf")), dim=-1)
        return x + attention @ times(self.matrix("wov1"))

    def first_layer_at(self, tokens: torch.Tensor, query_positions: torch.Tensor) -> torch.Tensor:
        """(B, T) tokens and (B, Q) query positions t → (B, Q, d): the first layer at those positions only,
        x_t + W_OV¹ Σ_{s ≤ t} β_s x_s, with the keys x_s = e_{z_s} + p_s never formed. With r = W_KQ¹ x_t the score
        is x_sᵀ r = e_{z_s}ᵀ r + p_sᵀ r, and the mix is Σ_s β_s x_s = Σ_k a_k e_k + Σ_s β_s p_s, where a_k is the
        attention on the positions holding token k. Equal to `attend(1, x, queries, query_positions)` up to
        float32 rounding (tests/unit/studies/memory/test_memory_induction.py)."""
        length, tokens_table = tokens.shape[1], self.token_embeddings
        positions_table = self.position_embeddings[:length]
        queries = embedding(tokens.gather(1, query_positions), tokens_table) + embedding(query_positions, positions_table)
        probes = queries @ self.matrix("wkq1").T  # (B, Q, d): row q is W_KQ¹ x_t
        keyed = tokens[:, None, :].expand(-1, query_positions.shape[1], -1)  # (B, Q, T): [b, q, s] = z_s
        scores = (probes @ tokens_table.T).gather(2, keyed) + probes @ positions_table.T  # [b, q, s] = x_sᵀ W_KQ¹ x_t
        causal = torch.arange(length, device=tokens.device) <= query_positions[..., None]  # [b, q, s]: s ≤ t
        attention = torch.softmax(scores.masked_fill(~causal, float("-inf")), dim=-1)
        on_token = attention.new_zeros(*attention.shape[:2], len(tokens_table)).scatter_add(2, keyed, attention)
        return queries + (on_token @ tokens_table + attention @ positions_table) @ self.matrix("wov1").T

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """(B, T) tokens → (B, T, N) logits u_vᵀ x_t at every position."""
        x = self.first_layer(tokens)
        if self.layers == 2:
            x = self.attend(2, x, x, torch.arange(tokens.shape[1], device=tokens.device)[None])
        return x @ self.output_embeddings.T

    def logits_at(self, tokens: torch.Tensor, where: torch.Tensor) -> torch.Tensor:
        """(B, T) tokens and a (B, T) bool mask of M positions → (M, N) logits there, in the order of `where`'s
        nonzero entries: `forward(tokens)[where]`, with the last layer computed at those positions only."""
        slot = torch.cumsum(where, dim=1) - 1  # a query's rank among its sequence's queries
        positions = torch.zeros(len(tokens), int(where.sum(dim=1).max()), dtype=torch.int64, device=tokens.device)
        sequence, position = where.nonzero(as_tuple=True)
        positions[sequence, slot[sequence, position]] = position  # (B, Q): each sequence's query positions, padded with 0
        if self.layers == 1:
            outputs = self.first_layer_at(tokens, positions)
        else:
            keys = self.first_layer(tokens)  # (B, T, d)
            queries = keys.gather(1, positions[..., None].expand(-1, -1, keys.shape[2]))  # (B, Q, d)
            outputs = self.attend(2, keys, queries, positions)
        return outputs[sequence, slot[sequence, position]] @ self.output_embeddings.T


def output_loss_and_hits(model: AttentionOnlyTransformer, tokens: torch.Tensor,
                         triggers: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, int]:
    """Mean cross-entropy and the number of correct argmax predictions of z_{t+1} over the output positions of
    `tokens[:, :-1]` (`output_positions`), and how many there are."""
    inputs, targets = tokens[:, :-1], tokens[:, 1:]
    mask = output_positions(inputs, triggers)
    count = int(mask.sum())
    if count == 0:
        raise ValueError(NO_OUTPUTS)
    logits = model.logits_at(inputs, mask)
    loss = nn.functional.cross_entropy(logits, targets[mask])
    hits = (logits.argmax(dim=1) == targets[mask]).sum()
    return loss, hits, count


def masked_output_loss(model: AttentionOnlyTransformer, tokens: torch.Tensor,
                       triggers: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """`output_loss_and_hits` with shapes that do not depend on the tokens, so that a CUDA graph can hold it: the
    logits at every position of `tokens[:, :-1]` (`forward`), the cross-entropy summed over the output positions
    and divided by their count, and the hits there. Returns (loss, hits, count) as 0-d tensors on the tokens'
    device; a count of 0 gives a NaN loss (the caller checks the counts). Equal to `output_loss_and_hits` up to
    float32 rounding (tests/unit/studies/memory/test_memory_induction.py)."""
    inputs, targets = tokens[:, :-1], tokens[:, 1:]
    mask = output_positions(inputs, triggers)
    logits = model(inputs)  # (B, T, N)
    weights = mask.to(logits.dtype)
    count = weights.sum()
    losses = nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction="none")
    loss = (losses * weights.flatten()).sum() / count
    hits = ((logits.argmax(dim=2) == targets) & mask).sum()
    return loss, hits, count
