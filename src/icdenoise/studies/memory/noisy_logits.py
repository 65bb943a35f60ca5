"""Slide 23's logits of one gradient step on noisy inputs, by Monte Carlo: with y uniform on [N], t uniform on
[T] and x = e_y + p_t, one step from W = 0 gives "u_kᵀ W₁ (e_y + p_t) ≈ (η/N) 1{y = k} + O(1/N²)".

The one-step memory is `memories.noisy_gradient_step`, W₁ = (η/N) Σ_j u_j (e_j − ē)ᵀ (η = 1), the study's own.
What the slide states is the logits' size; read as an expectation over the data and the random embeddings, it is
exact. With every embedding i.i.d. N(0, I/d) and the positions independent of everything else and of mean zero:
- E_p[u_kᵀ W₁ p_t] = 0, so the positions drop out of the expectation;
- E[u_kᵀ W₁ e_y] = (η/N) Σ_j E[u_kᵀu_j] E[(e_j − ē)ᵀ e_y] = (η/N) E‖u_k‖² E[(e_k − ē)ᵀ e_y], with E‖u‖² = 1,
  E[(e_k − ē)ᵀ e_y] = 1{y = k} − 1/N;
so E[u_kᵀ W₁ (e_y + p_t)] / (η/N) = 1{y = k} − 1/N at every d and T: the slide's O(1/N²) term is −η/N², the
centring by ē (`expected_ratios`). The fluctuations about it (docs/memory.md: the position adds 1/d + N/d² to each
logit's variance) are what halve the noisy step's capacity; they do not move the mean.

Monte Carlo (`logit_table`): per d, `draws` independent draws of the tables (e, u: N rows; p: T rows); each token y
is queried once, at a position t drawn uniformly from [T]; per draw the ratios N·u_kᵀ W₁ x_y are averaged over the
N right pairs (k = y) and over the N(N − 1) wrong ones (k ≠ y)."""

from __future__ import annotations

import pandas as pd
import torch

from icdenoise.studies.memory.embeddings import gaussian_embeddings, generator
from icdenoise.studies.memory.memories import noisy_gradient_step

COLUMNS = ("vocabulary", "positions", "d", "draw", "correct", "wrong", "expected_correct", "expected_wrong")
DRAWS = 5  # purpose code of the draws' generators


def expected_ratios(vocabulary: int) -> tuple[float, float]:
    """E[u_kᵀ W₁ (e_y + p_t)]/(η/N) for y = k and for y ≠ k: 1 − 1/N and −1/N (slide 23; exact, see above)."""
    return 1 - 1 / vocabulary, -1 / vocabulary


def ratios(tokens: torch.Tensor, outputs: torch.Tensor, positions: torch.Tensor, at: torch.Tensor) -> torch.Tensor:
    """(N, N): [k, y] = u_kᵀ W₁ (e_y + p_{t_y}) / (η/N) for the one-step memory W₁ of (tokens e, outputs u) on noisy
    inputs (`noisy_gradient_step`, η = 1), token y queried at the position index `at[y]`."""
    memory = noisy_gradient_step(tokens, outputs)
    inputs = tokens + positions[at]
    return tokens.shape[0] * (outputs @ memory @ inputs.T)


def draw_means(vocabulary: int, d: int, positions: int, rng: torch.Generator) -> tuple[float, float]:
    """One draw of the tables and the query positions: the mean ratio over the N right pairs and over the
    N(N − 1) wrong ones."""
    tokens, outputs = gaussian_embeddings(rng, vocabulary, d), gaussian_embeddings(rng, vocabulary, d)
    table = gaussian_embeddings(rng, positions, d)
    at = torch.randint(positions, (vocabulary,), generator=rng)
    values = ratios(tokens, outputs, table, at).double()
    right = torch.diagonal(values)
    wrong = (values.sum() - right.sum()) / (vocabulary * (vocabulary - 1))
    return float(right.mean()), float(wrong)


def logit_table(block: dict) -> pd.DataFrame:
    """One row per (d, draw) of the block (vocabulary N, positions T, ds, draws, seed): the draw's mean right and
    wrong ratios (`draw_means`) beside their expectations (`expected_ratios`). Draw i at d comes from the generator
    (seed, DRAWS, d, i) alone."""
    expected_correct, expected_wrong = expected_ratios(block["vocabulary"])
    rows = []
    for d in block["ds"]:
        for draw in range(block["draws"]):
            correct, wrong = draw_means(block["vocabulary"], d, block["positions"], generator(block["seed"], DRAWS, d, draw))
            rows.append({"vocabulary": block["vocabulary"], "positions": block["positions"], "d": d, "draw": draw,
                         "correct": correct, "wrong": wrong, "expected_correct": expected_correct,
                         "expected_wrong": expected_wrong})
    return pd.DataFrame(rows, columns=list(COLUMNS))
