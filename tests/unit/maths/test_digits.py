"""The digits prior (icdenoise.maths.digits.Digits): its prompts are one digit's unit-norm images, and its Bayes
posterior mean is the softmax over that digit's images of −‖x̃ − x_i‖²/(2σ_z²), checked against a direct sum and
against the orthogonality principle (the error of E[x | x̃] is uncorrelated with x̃) on Monte-Carlo draws."""

import numpy as np
import pytest
from scipy.special import softmax

from icdenoise.maths.cases import make_case
from icdenoise.maths.digits import CLASSES, RAREST, Digits, digit_images, unit_images

SIGMA_Z_SQ = 1 / 64
CASE = {"task": "icdenoise.maths.digits:Digits", "n": 64, "per_class": 30,
        "corruption": {"kind": "query", "sigma_z_sq": SIGMA_Z_SQ}}


def test_each_prompt_draws_unit_images_of_its_own_digit_from_its_generator_alone():
    task = Digits(n=64, per_class=30)
    images, labels = digit_images()
    for seed in range(5):
        tokens, parameters = task.sample_tokens(np.random.default_rng([3, seed]), 40)
        digit = int(parameters["digit"])
        np.testing.assert_allclose(np.linalg.norm(tokens, axis=1), 1.0)
        own = images[labels == digit][:30].reshape(30, 64)
        own = own / np.linalg.norm(own, axis=1, keepdims=True)
        assert all(np.isclose(own, token).all(axis=1).any() for token in tokens)  # each token is one of them
        again, _ = task.sample_tokens(np.random.default_rng([3, seed]), 40)
        np.testing.assert_array_equal(tokens, again)
    assert unit_images(30).shape == (CLASSES, 30, 64)


def test_the_posterior_mean_is_the_softmax_of_squared_distances_over_the_digits_images():
    case = make_case(CASE)
    prompts = case.sample(60, 5, seed=0)
    images = unit_images(30)
    direct = np.stack([softmax(-np.sum((images[int(digit)] - query) ** 2, axis=1) / (2 * SIGMA_Z_SQ)) @ images[int(digit)]
                       for query, digit in zip(prompts.query, prompts.task["digit"])])
    np.testing.assert_allclose(case.task.bayes(prompts, SIGMA_Z_SQ), direct, rtol=1e-9, atol=1e-12)


def test_the_posterior_means_error_is_uncorrelated_with_the_noisy_query():
    """E[(x − E[x | x̃]) g(x̃)] = 0 for every g; here g(x̃) = x̃_j, for each coordinate pair, within 5 standard errors."""
    case = make_case(CASE)
    prompts = case.sample(20000, 1, seed=1)
    error = prompts.target - case.task.bayes(prompts, SIGMA_Z_SQ)
    products = error[:, :, None] * prompts.query[:, None, :]  # (N, n, n)
    mean, spread = products.mean(axis=0), products.std(axis=0) / np.sqrt(len(products))
    assert np.all(np.abs(mean) <= 5 * spread + 1e-12)
    wrong = prompts.target - case.task.bayes(prompts, 2 * SIGMA_Z_SQ)  # the posterior mean at another noise level
    varies = spread > 0  # a pixel blank in every image (a corner) has no error at all
    assert np.max(np.abs((wrong[:, :, None] * prompts.query[:, None, :]).mean(axis=0))[varies] / spread[varies]) > 10


def test_its_second_moment_is_one_and_its_oracle_beats_the_zero_predictor():
    task = Digits(n=64, per_class=30)
    case = make_case(CASE)
    prompts = case.sample(2000, 1, seed=2)
    assert np.mean(np.sum(prompts.target**2, axis=1)) == pytest.approx(task.second_moment())
    assert np.mean((case.task.bayes(prompts, SIGMA_Z_SQ) - prompts.target) ** 2) < 0.5 * SIGMA_Z_SQ


def test_a_size_the_rarest_digit_cannot_fill_and_a_wrong_n_are_refused():
    _, labels = digit_images()
    assert np.bincount(labels).min() == RAREST and np.bincount(labels).argmin() == 8
    with pytest.raises(ValueError, match=r"per_class: 175 .* digit 8 has only 174 \(allowed: 1 to 174\)"):
        Digits(n=64, per_class=175)
    with pytest.raises(ValueError, match="n = 64, not 16"):
        Digits(n=16, per_class=10)
