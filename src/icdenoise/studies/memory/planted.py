"""Slide 24's planted-token task and its three gradient steps (Vural, Wu and Bietti, 2025+, "Learnability of
induction head", informal): the model learns y = f*(z_{t*}) iff d ≫ (T²/N)·min{1, (N²/(T n))^{2/3}}, assuming
d ≫ √N ≫ 1 and n ≫ N (d embedding dimension, N vocabulary, T context length, n sample size).

Task (our reading of slide 24; the slides give no more). A trigger token q (token 0: the embeddings are exchangeable,
so which token is the trigger does not matter) and f*, a uniformly random permutation of [N] drawn from the block's
seed. A sample: context tokens z_1..z_T i.i.d. uniform over [N] \\ {q}; a planted position t* uniform in 2..T−1
whose previous token is set to q; the query, at the last position, is q. So q occurs exactly twice, at t*−1 and T.
The target is y = f*(z_{t*}).

Inputs. The first layer is taken as learned (slide 24: "the trigger appears along with the relevant token"): the
input at t is x_t = e_{z_t} + ẽ_{z_{t−1}}, where ẽ is the previous-token layer's remapped embedding, an independent
random table (x_1 has no previous-token term). So x_{t*} = e_{z_{t*}} + ẽ_q carries the trigger's trace, and the
query is x_T = e_q + ẽ_{z_{T−1}}. Embeddings e, ẽ and output embeddings u have i.i.d. N(0, 1/d) entries
(`gaussian_embeddings`) and are frozen.

Model. logits_k = u_kᵀ W_OV Σ_t β_t x_t with β = softmax_t(x_tᵀ W_KQ x_T) over every position t = 1..T (the
query included), cross-entropy over the N outputs, mean over the n training samples. Start at W_OV = W_KQ = 0:
uniform attention, uniform predictions.

Three steps (slide 24: "first W_OV, then W_KQ, then W_OV again"), all on the same n training samples (our choice:
no sample splitting, so every step sees all n samples, as in an empirical-risk analysis; splitting would only
divide n by three). Each is a normalised step W ← W − ρ ∇_W L/‖∇_W L‖_F, the other matrix held, the gradient by
autograd accumulated over chunks of `chunk` samples. Why normalised: argmax readouts only see directions, but
the W_KQ step's size sets how sharp attention becomes, so its size must be stated in the units of the scores.
Our step sizes:

- ρ_ov (`step_ov`, default 1): small, so that after step 1 the logits stay O(1/(√N T)) and the predictions
  ≈ uniform: step 2 sees the linearised (small-step) W_OV of the analysis. Step 1 alone cannot solve the task:
  with uniform attention every context token z_t votes for its own f*(z_t) with the same weight, so the step-1
  recall is about 1/T.
- ρ_kq (`kq_scale`·log T, default 2 log T): if the W_KQ gradient pointed exactly along the signal ẽ_q e_qᵀ
  (‖ẽ_q‖‖e_q‖ ≈ 1), the planted score x_{t*}ᵀ W_KQ x_T would be ≈ ρ_kq and every other ≈ 0, so t* would take
  the attention e^ρ/(e^ρ + T − 1) = 1 − O(1/T): the step is large enough to focus when its direction is right
  and gives nothing when the direction is noise (the scores then scatter by ≈ ρ_kq/√d at random positions).
- ρ_ov3 (`step_ov3`, default 100): large against ‖W_OV after step 1‖ = ρ_ov, so that step 3 replaces the
  unfocused step-1 memory by one re-read through the focused attention rather than adding a small correction.

Success: recall = the fraction of `test_samples` fresh samples whose argmax_k logits_k is f*(z_{t*}) after step 3;
success iff recall ≥ `success_threshold`. Also recorded: the recall after step 1 and the mean attention β_{t*}
after step 2 on the test samples.

Random draws: f* from (block seed, PERMUTATION); the embeddings from (seed, EMBEDDINGS, N, d), shared across T
and n; the training samples from (seed, TRAIN, N, T, n) and the test samples from (seed, TEST, N, T), shared
across d (common random numbers, so recall is smoother in d and the boundary interpolation steadier).
"""

from __future__ import annotations

import math

import pandas as pd
import torch
from torch import nn
from torch.nn.functional import embedding

from icdenoise.studies.memory.embeddings import gaussian_embeddings, generator
from icdenoise.studies.memory.planted_boundary import theory_d

TRIGGER = 0  # q: the embeddings are exchangeable, so any fixed token will do
PERMUTATION, EMBEDDINGS, TRAIN, TEST = 1, 2, 3, 4  # purpose codes of the generators
GRID_COLUMNS = ("vocabulary", "d", "length", "samples", "seed", "recall_step1", "attention_planted", "recall",
                "success", "theory_d", "grid")


def target_map(block: dict) -> torch.Tensor:
    """f* as an (N,) int64 tensor: a uniformly random permutation of [N] drawn from `block["seed"]` alone."""
    return torch.randperm(block["vocabulary"], generator=generator(block["seed"], PERMUTATION))


def planted_samples(rng: torch.Generator, count: int, vocabulary: int, length: int,
                    permutation: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """`count` samples of the planted task: tokens (count, T) int64, the planted position t* (count,) as a
    0-based index in 1..T−2 (slide 24's 2..T−1), and the targets y = f*(z_{t*}) (count,). Tokens are uniform over
    [N] \\ {q}, then z_{t*−1} and z_T are set to q = `TRIGGER`."""
    if length < 3:
        raise ValueError(f"length = {length}: the planted task needs T ≥ 3")
    tokens = torch.randint(vocabulary - 1, (count, length), generator=rng)
    tokens = tokens + (tokens >= TRIGGER).long()  # uniform over [N] \ {q}
    planted = torch.randint(1, length - 1, (count,), generator=rng)
    rows = torch.arange(count)
    tokens[rows, planted - 1] = TRIGGER
    tokens[:, -1] = TRIGGER
    return tokens, planted, permutation[tokens[rows, planted]]


def embeddings(seed: int, vocabulary: int, d: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The frozen tables (e, ẽ, u), each (N, d) with i.i.d. N(0, 1/d) entries, from (seed, N, d)."""
    rng = generator(seed, EMBEDDINGS, vocabulary, d)
    return tuple(gaussian_embeddings(rng, vocabulary, d) for _ in range(3))


def attention(tokens: torch.Tensor, tables: tuple, wkq: torch.Tensor) -> torch.Tensor:
    """(B, T): β_t = softmax_t(x_tᵀ W_KQ x_T), with x_t = e_{z_t} + ẽ_{z_{t−1}} (no previous-token term at t = 1).

    The (B, T, d) inputs are never formed: with p = W_KQ x_T, x_tᵀ p = e_{z_t}ᵀ p + ẽ_{z_{t−1}}ᵀ p, so p is
    scored against the N rows of e and of ẽ once and the scores are gathered at each sample's tokens."""
    tokens_table, previous_table = tables[0], tables[1]
    probe = (embedding(tokens[:, -1], tokens_table) + embedding(tokens[:, -2], previous_table)) @ wkq.T
    scores = (probe @ tokens_table.T).gather(1, tokens)
    after = (probe @ previous_table.T).gather(1, tokens[:, :-1])
    return torch.softmax(scores + nn.functional.pad(after, (1, 0)), dim=1)


def logits_from(beta: torch.Tensor, tokens: torch.Tensor, tables: tuple, wov: torch.Tensor) -> torch.Tensor:
    """(B, N): logits_k = u_kᵀ W_OV Σ_t β_t x_t for the attention `beta` (B, T). The mix is formed in the
    embeddings' coordinates: Σ_t β_t x_t = Σ_k a_k e_k + Σ_k b_k ẽ_k, where a_k is the attention on the
    positions holding token k and b_k on the positions that follow one."""
    tokens_table, previous_table, outputs = tables
    on_token = beta.new_zeros(len(tokens), len(tokens_table)).scatter_add(1, tokens, beta)
    after_token = beta.new_zeros(len(tokens), len(previous_table)).scatter_add(1, tokens[:, :-1], beta[:, 1:])
    mixed = on_token @ tokens_table + after_token @ previous_table
    return mixed @ wov.T @ outputs.T


def logits_of(tokens: torch.Tensor, tables: tuple, wov: torch.Tensor, wkq: torch.Tensor) -> torch.Tensor:
    """(B, N): logits_k = u_kᵀ W_OV Σ_t β_t x_t of the samples `tokens` (B, T), tables (e, ẽ, u)."""
    return logits_from(attention(tokens, tables, wkq), tokens, tables, wov)


def chunked_gradient(name: str, weights: dict[str, torch.Tensor], tables: tuple, tokens: torch.Tensor,
                     targets: torch.Tensor, chunk: int) -> torch.Tensor:
    """∇ of the mean cross-entropy over every sample of `tokens` with respect to `weights[name]` ("wov" or
    "wkq"), the other held: summed losses of `chunk`-sized pieces, each differentiated and added."""
    weight = weights[name].detach().clone().requires_grad_(True)
    held = {key: value.detach() for key, value in weights.items()}
    held[name] = weight
    total = torch.zeros_like(weight)
    for start in range(0, len(tokens), chunk):
        logits = logits_of(tokens[start:start + chunk], tables, held["wov"], held["wkq"])
        loss = nn.functional.cross_entropy(logits, targets[start:start + chunk], reduction="sum")
        (gradient,) = torch.autograd.grad(loss, [weight])
        total += gradient
    return total / len(tokens)


def normalised_step(weight: torch.Tensor, gradient: torch.Tensor, size: float) -> torch.Tensor:
    """W − ρ ∇/‖∇‖_F: a move of Frobenius norm ρ along −∇ (W unchanged when ∇ = 0)."""
    norm = gradient.norm()
    if norm == 0:
        return weight.clone()
    return weight - size * gradient / norm


def evaluate(weights: dict[str, torch.Tensor], tables: tuple, tokens: torch.Tensor, planted: torch.Tensor,
             targets: torch.Tensor, chunk: int) -> tuple[float, float]:
    """(recall, mean β_{t*}) over the samples: the fraction whose argmax logit is the target, and the mean
    attention the query puts on the planted position."""
    hits, focus = 0, 0.0
    with torch.no_grad():
        for start in range(0, len(tokens), chunk):
            chunk_tokens = tokens[start:start + chunk]
            beta = attention(chunk_tokens, tables, weights["wkq"])
            logits = logits_from(beta, chunk_tokens, tables, weights["wov"])
            hits += int((logits.argmax(dim=1) == targets[start:start + chunk]).sum())
            rows = torch.arange(len(chunk_tokens))
            focus += float(beta[rows, planted[start:start + chunk]].sum())
    return hits / len(tokens), focus / len(tokens)


def chunk_size(block: dict, length: int, d: int) -> int:
    """Samples per chunk: about `block["chunk_floats"]` (execution.memory.planted.chunk_floats) floats of intermediates, counted as T + N + d per sample
    (the scores, the attention on each token and the mix), at least 1."""
    return max(1, int(block.get("chunk_floats", 2 ** 21)) // (length + block["vocabulary"] + d))


def three_steps(block: dict, d: int, length: int, samples: int, seed: int) -> dict:
    """Slide 24's three normalised steps from W_OV = W_KQ = 0 on `samples` training samples of length `length`
    at width `d`: recall after step 1 (`recall_step1`), mean attention on t* after step 2
    (`attention_planted`), recall after step 3 (`recall`), all on `block["test_samples"]` fresh samples."""
    vocabulary = block["vocabulary"]
    permutation = target_map(block)
    tables = embeddings(seed, vocabulary, d)
    tokens, _, targets = planted_samples(generator(seed, TRAIN, vocabulary, length, samples), samples, vocabulary,
                                         length, permutation)
    test = planted_samples(generator(seed, TEST, vocabulary, length), block["test_samples"], vocabulary, length,
                           permutation)
    chunk = chunk_size(block, length, d)
    weights = {"wov": torch.zeros(d, d, dtype=torch.float32), "wkq": torch.zeros(d, d, dtype=torch.float32)}
    sizes = {1: ("wov", block["step_ov"]), 2: ("wkq", block["kq_scale"] * math.log(length)),
             3: ("wov", block["step_ov3"])}
    row = {}
    for stage, (name, size) in sizes.items():
        gradient = chunked_gradient(name, weights, tables, tokens, targets, chunk)
        weights[name] = normalised_step(weights[name], gradient, size)
        recall, focus = evaluate(weights, tables, *test, chunk)
        if stage == 1:
            row["recall_step1"] = recall
        elif stage == 2:
            row["attention_planted"] = focus
        else:
            row["recall"] = recall
    return row


def labelled_grid_points(block: dict) -> list[tuple[int, int, int, str]]:
    """(d, T, n, grid) of `threshold_grid`: ds × lengths at `samples` ("lengths"), then ds × `samples_list` at
    `samples_length` ("samples", the n-dependence), then the regime grid `regime.ds` × `regime.lengths` at
    `regime.samples` ("regime": slide 24's T^{4/3} regime above the √N floor, chosen from the formula alone), without
    repeating a point: a point of several grids is computed once, under the first grid's name."""
    points = {(d, length, block["samples"]): "lengths" for length in block["lengths"] for d in block["ds"]}
    for samples in block.get("samples_list", []):
        for d in block["ds"]:
            points.setdefault((d, block["samples_length"], samples), "samples")
    regime = block.get("regime") or {}
    for length in regime.get("lengths", []):
        for d in regime["ds"]:
            points.setdefault((d, length, regime["samples"]), "regime")
    return [(*point, grid) for point, grid in points.items()]


def grid_points(block: dict) -> list[tuple[int, int, int]]:
    """(d, T, n) of `threshold_grid` (`labelled_grid_points` without the grid's name)."""
    return [point[:3] for point in labelled_grid_points(block)]


def threshold_grid(block: dict, seed: int) -> pd.DataFrame:
    """One row per grid point (`labelled_grid_points`) of `three_steps` from `seed`, with the success flag (recall ≥
    `success_threshold`), the theorem's threshold without constants (`theory_d`) and the grid it belongs to."""
    rows = []
    for d, length, samples, grid in labelled_grid_points(block):
        result = three_steps(block, d, length, samples, seed)
        rows.append({"vocabulary": block["vocabulary"], "d": d, "length": length, "samples": samples, "seed": seed,
                     **result, "success": bool(result["recall"] >= block["success_threshold"]),
                     "theory_d": float(theory_d(block["vocabulary"], length, samples)), "grid": grid})
    return pd.DataFrame(rows, columns=list(GRID_COLUMNS))
