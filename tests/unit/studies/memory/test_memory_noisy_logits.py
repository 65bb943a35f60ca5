"""Slide 23's one-step logits on noisy inputs: the ratios against an explicit sum in float64, the Monte-Carlo means
against the exact expectation 1{y = k} − 1/N (and away from the uncentred 1{y = k}), the positions' dropping out,
the draws' independence, and the claims' measures."""

import numpy as np
import pandas as pd
import pytest
import torch

from icdenoise.studies.memory.claims import CLAIMS
from icdenoise.studies.memory.embeddings import generator
from icdenoise.studies.memory.noisy_logits import COLUMNS, draw_means, expected_ratios, logit_table, ratios

TINY = {"vocabulary": 6, "positions": 3, "ds": [8, 16], "draws": 4, "seed": 2}


def test_ratios_are_the_slides_logits_over_eta_over_n_summed_explicitly():
    """[k, y] = u_kᵀ W₁ (e_y + p_{t_y}) / (1/N) with W₁ = (1/N) Σ_j u_j (e_j − ē)ᵀ, summed term by term."""
    rng = torch.Generator().manual_seed(4)
    tokens, outputs = torch.randn(5, 7, generator=rng, dtype=torch.float64), torch.randn(5, 7, generator=rng, dtype=torch.float64)
    positions = torch.randn(3, 7, generator=rng, dtype=torch.float64)
    at = torch.tensor([2, 0, 1, 1, 2])
    mean = tokens.mean(dim=0)
    expected = torch.zeros(5, 5, dtype=torch.float64)
    for k in range(5):
        for y in range(5):
            x = tokens[y] + positions[at[y]]
            expected[k, y] = sum(float(outputs[k] @ outputs[j]) * float((tokens[j] - mean) @ x) for j in range(5))
    torch.testing.assert_close(ratios(tokens, outputs, positions, at), expected)


def test_the_exact_expectation_is_the_slides_term_with_its_o_of_one_over_n_squared():
    assert expected_ratios(64) == (1 - 1 / 64, -1 / 64)
    assert expected_ratios(4) == (0.75, -0.25)


@pytest.mark.parametrize("d", [4, 32])
def test_monte_carlo_means_match_the_exact_expectation_and_not_the_uncentred_one(d):
    """At N = 4 the centring moves the right ratio to 3/4 and the wrong one to −1/4: the Monte-Carlo means over
    many draws sit within 4 standard errors of these, at a small and a larger d (no finite-d bias), and more than
    4 standard errors from the uncentred 1 and 0 - so the test can tell the slide's O(1/N²) term apart."""
    vocabulary, draws = 4, 3000
    values = np.array([draw_means(vocabulary, d, 5, generator(9, d, draw)) for draw in range(draws)])
    errors = values.std(axis=0, ddof=1) / np.sqrt(draws)
    for column, (exact, uncentred) in enumerate(zip(expected_ratios(vocabulary), (1.0, 0.0))):
        assert abs(values[:, column].mean() - exact) < 4 * errors[column]
        assert abs(values[:, column].mean() - uncentred) > 4 * errors[column]


def test_the_positions_drop_out_of_the_mean_but_not_of_the_spread():
    """With the same tables, a zero position table gives the same expectation (checked on the draw means' average
    over many draws, pairing the draws) and a smaller spread of the right ratio: the position adds variance only."""
    vocabulary, d, draws = 8, 16, 600
    with_positions, without = [], []
    for draw in range(draws):
        rng = generator(3, draw)
        tokens, outputs = torch.randn(vocabulary, d, generator=rng) / d**0.5, torch.randn(vocabulary, d, generator=rng) / d**0.5
        table = torch.randn(4, d, generator=rng) / d**0.5
        at = torch.randint(4, (vocabulary,), generator=rng)
        with_positions.append(torch.diagonal(ratios(tokens, outputs, table, at)).double().numpy())
        without.append(torch.diagonal(ratios(tokens, outputs, torch.zeros_like(table), at)).double().numpy())
    difference = (np.array(with_positions) - np.array(without)).mean(axis=1)
    assert abs(difference.mean()) < 4 * difference.std(ddof=1) / np.sqrt(draws)
    assert np.var(with_positions) > np.var(without)


def test_the_table_draws_each_draw_from_its_own_generator():
    table = logit_table(TINY)
    assert list(table.columns) == list(COLUMNS) and len(table) == 2 * 4
    fewer = logit_table({**TINY, "draws": 2})
    pd.testing.assert_frame_equal(fewer, table[table["draw"] < 2].reset_index(drop=True))
    assert (table["expected_correct"] == 1 - 1 / 6).all() and (table["expected_wrong"] == -1 / 6).all()
    assert table.groupby("d")["correct"].nunique().min() == 4  # the draws differ


def test_the_claims_read_one_value_per_draw():
    table = pd.DataFrame({"correct": [0.9, 1.1, 1.0], "wrong": [0.01, -0.02, 0.0]})
    frames = {"noisy_logits": table}
    np.testing.assert_array_equal(CLAIMS["noisy_step_logit_expectation_correct"].measure(frames, {}), [0.9, 1.1, 1.0])
    np.testing.assert_array_equal(CLAIMS["noisy_step_logit_expectation_wrong"].measure(frames, {}), [0.01, -0.02, 0.0])
