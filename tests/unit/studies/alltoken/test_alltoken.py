"""The all-token study's estimators and mean-field theory against independent computations: a naive
softmax, Monte-Carlo and quadrature for the Bayes posterior mean, scipy's ODE solver, and a particle
simulation for the Gaussian covariance ODE."""

import numpy as np
import pytest
import torch
from scipy import integrate

from icdenoise.maths.cases import make_case
from icdenoise.maths.estimators import closed_form_denoisers
from icdenoise.maths.models import TwoStageAttention
from icdenoise.maths.prompts import Prompts
from icdenoise.studies.alltoken import empirical_bayes, meanfield
from icdenoise.studies.alltoken.priors import mixture, noisy_contexts

MIXTURE_CASE = {"task": "mixture", "n": 1, "centres": [[-1.0], [1.0]], "sigma0_sq": 0.05,
                "corruption": {"kind": "all_tokens", "sigma_z_sq": 0.5}, "L": 30}


def naive_attention(queries, keys, beta):
    """softmax over keys of −β/2 ‖q − k‖², every pair at once, in float64."""
    distance_sq = ((queries[:, :, None, :] - keys[:, None, :, :]) ** 2).sum(-1)
    return torch.softmax(-beta / 2 * distance_sq, dim=-1) @ keys


@pytest.mark.parametrize("dims", [1, 2, 6])
def test_chunked_gaussian_attention_equals_the_naive_softmax(monkeypatch, dims):
    monkeypatch.setattr(empirical_bayes, "BLOCK_VALUES", 50)  # many blocks of a few rows
    generator = torch.Generator().manual_seed(dims)
    keys = torch.randn(3, 37, dims, generator=generator, dtype=torch.float64)
    queries = 2 * torch.randn(3, 11, dims, generator=generator, dtype=torch.float64)
    torch.testing.assert_close(empirical_bayes.gaussian_attention(keys, keys, 7.0, self_attention=True), naive_attention(keys, keys, 7.0))
    torch.testing.assert_close(empirical_bayes.gaussian_attention(queries, keys, 7.0), naive_attention(queries, keys, 7.0))


def test_far_queries_keep_their_nearest_key_despite_the_kernel_floor():
    """A query far from every key (log-weights far below the floor) still gets the softmax's answer:
    the row maximum is subtracted before the floor applies."""
    keys = torch.tensor([[[0.0], [1.0]]], dtype=torch.float64)
    queries = torch.tensor([[[30.0]]], dtype=torch.float64)
    result = empirical_bayes.gaussian_attention(queries, keys, 2.0)
    torch.testing.assert_close(result, naive_attention(queries, keys, 2.0))
    assert result.item() == pytest.approx(1.0)


def test_denoisers_at_depth_zero_and_their_relations():
    case = make_case(MIXTURE_CASE)
    prompts = case.sample(4, 30, seed=3)
    noisy = torch.as_tensor(prompts.context, dtype=torch.float64)
    denoisers = empirical_bayes.empirical_bayes_denoisers(beta=20.0, eta=0.05, layers=0, sigma_z_sq=0.5)
    np.testing.assert_allclose(denoisers["stage1_only"].predict(prompts)[0], prompts.context, atol=1e-6)
    stage2 = naive_attention(noisy, noisy, 1 / 0.5).numpy()
    np.testing.assert_allclose(denoisers["stage2_only"].predict(prompts)[0], stage2, atol=1e-5)
    np.testing.assert_allclose(denoisers["two_stage"].predict(prompts)[0], stage2, atol=1e-5)


def test_two_stage_after_layers_equals_a_naive_flow_then_cross_attention():
    prompts = make_case(MIXTURE_CASE).sample(3, 25, seed=4)
    noisy = torch.as_tensor(prompts.context, dtype=torch.float64)
    particles = noisy
    for _ in range(7):
        particles = particles + 0.1 * (naive_attention(particles, particles, 5.0) - particles)
    expected = naive_attention(noisy, particles, 2.0).numpy()
    denoisers = empirical_bayes.empirical_bayes_denoisers(beta=5.0, eta=0.1, layers=7, sigma_z_sq=0.5)
    np.testing.assert_allclose(denoisers["stage1_only"].predict(prompts)[0], particles.numpy(), atol=1e-5)
    np.testing.assert_allclose(denoisers["two_stage"].predict(prompts)[0], expected, atol=1e-5)


def test_the_learned_model_at_the_theory_parameters_is_the_two_stage_estimator():
    layers, beta, eta, sigma_z_sq = 5, 4.0, 0.2, 0.5
    model = TwoStageAttention({"log_beta": torch.full((2, layers, 1), np.log(beta), dtype=torch.float64),
                               "eta": torch.full((2, layers, 1), eta, dtype=torch.float64),
                               "log_beta_c": torch.full((2, 1, 1), np.log(1 / sigma_z_sq), dtype=torch.float64)})
    prompts = make_case(MIXTURE_CASE).sample(3, 20, seed=5)
    expected = empirical_bayes.empirical_bayes_denoisers(beta, eta, layers, sigma_z_sq)["two_stage"].predict(prompts)[0]
    predicted = model.predict(prompts)
    assert predicted.shape == (2, 3, 20, 1)
    np.testing.assert_allclose(predicted[0], expected, atol=1e-5)
    np.testing.assert_allclose(predicted[1], expected, atol=1e-5)


@pytest.mark.parametrize("sigma0_sq", [0.0, 0.3])
def test_mixture_bayes_posterior_mean_matches_monte_carlo(sigma0_sq):
    """E[x | y] from prior draws weighted by the likelihood (self-normalised importance sampling)."""
    prior = mixture([[-1.0, 0.5], [2.0, 0.0], [0.0, -1.5]], sigma0_sq)
    rng = np.random.default_rng(0)
    draws, _ = prior.sample_tokens(rng, 400000)
    queries = np.array([[0.3, 0.2], [1.5, -0.4], [-0.5, -1.0]])
    case = make_case({"task": "mixture", "n": 2, "centres": [list(c) for c in prior.centres], "sigma0_sq": sigma0_sq,
                      "corruption": {"kind": "all_tokens", "sigma_z_sq": 0.7}, "L": 3})
    task = {"centres": np.array(prior.centres)[None], "weights": np.full((1, 3), 1 / 3)}
    closed = closed_form_denoisers(case)["oracle"].predict(Prompts(queries[None], queries[None], queries[None], task))[0, 0]
    for query, value in zip(queries, closed):
        log_weights = -np.sum((draws - query) ** 2, axis=1) / (2 * 0.7)
        weights = np.exp(log_weights - log_weights.max())
        np.testing.assert_allclose(value, weights @ draws / weights.sum(), atol=0.01)


def test_gaussian_component_posterior_mean_matches_quadrature_in_one_dimension():
    sigma0_sq, sigma_z_sq = 0.05, 0.5
    case = make_case({**MIXTURE_CASE, "sigma0_sq": sigma0_sq})
    density = lambda x: 0.5 * sum(np.exp(-(x - m) ** 2 / (2 * sigma0_sq)) for m in (-1.0, 1.0))  # noqa: E731
    for y in (-0.7, 0.1, 1.9):
        likelihood = lambda x: np.exp(-(y - x) ** 2 / (2 * sigma_z_sq)) * density(x)  # noqa: E731
        numerator = integrate.quad(lambda x: x * likelihood(x), -6, 6)[0]
        expected = numerator / integrate.quad(likelihood, -6, 6)[0]
        prompts = Prompts(np.array([[[y]]]), np.array([[[y]]]), np.array([[[y]]]),
                          {"centres": np.array([[[-1.0], [1.0]]]), "weights": np.array([[0.5, 0.5]])})
        prompts = Prompts(prompts.context, prompts.context, prompts.target, prompts.task)
        assert closed_form_denoisers(case)["oracle"].predict(prompts)[0, 0, 0, 0] == pytest.approx(expected, abs=1e-7)


@pytest.mark.parametrize("beta", [1.0, 5.0, 20.0, 400.0])
def test_variance_closed_form_solves_the_finite_beta_ode(beta):
    solution = integrate.solve_ivp(lambda tau, v: -2 * v / (v + 1 / beta), (0, 0.25), [0.25], rtol=1e-10, atol=1e-13, dense_output=True)
    taus = np.linspace(0, 0.25, 11)
    np.testing.assert_allclose(meanfield.variance_at_time(taus, 0.25, beta), solution.sol(taus)[0], rtol=1e-6, atol=1e-10)


def test_variance_tends_to_the_linear_decay_as_beta_grows():
    taus = np.linspace(0, 0.1, 5)
    np.testing.assert_allclose(meanfield.variance_at_time(taus, 0.25, 1e6), meanfield.variance_infinite_beta(taus, 0.25), atol=1e-4)


def test_covariance_eigenvalues_solve_the_matrix_ode():
    """dΓ/dt = −2Γ(I + βΓ)⁻¹ integrated as a 2×2 matrix from a non-diagonal Γ(0)."""
    beta, rotation = 5.0, np.array([[np.cos(0.4), -np.sin(0.4)], [np.sin(0.4), np.cos(0.4)]])
    gamma0 = rotation @ np.diag([1.5, 0.75]) @ rotation.T

    def derivative(t, flat):
        gamma = flat.reshape(2, 2)
        return (-2 * gamma @ np.linalg.inv(np.eye(2) + beta * gamma)).ravel()

    times = np.array([0.0, 0.5, 1.25, 2.0])
    solution = integrate.solve_ivp(derivative, (0, 2.0), gamma0.ravel(), t_eval=times, rtol=1e-10, atol=1e-12)
    numerical = np.stack([np.sort(np.linalg.eigvalsh(state.reshape(2, 2)))[::-1] for state in solution.y.T])
    np.testing.assert_allclose(meanfield.covariance_eigenvalues(times, [1.5, 0.75], beta), numerical, rtol=1e-6)
    reach = meanfield.time_to_reach(1.5, 1.0, beta)
    assert meanfield.covariance_eigenvalues(reach, [1.5], beta)[0, 0] == pytest.approx(1.0, rel=1e-8)


def test_particles_from_a_gaussian_prior_follow_the_covariance_ode():
    """2-D particle simulation (N = 3000) against dΓ/dt = −2Γ(I + βΓ)⁻¹ in t = ℓη: eigenvalues within 5%."""
    beta, eta, layers = 5.0, 0.05, 30
    rng = np.random.default_rng(0)
    spread = np.sqrt(np.array([1.0, 0.25]) + 0.5)
    particles = torch.as_tensor((spread * rng.standard_normal((3000, 2)))[None], dtype=torch.float64)
    initial = np.sort(np.linalg.eigvalsh(np.cov(particles[0].numpy().T)))[::-1]
    (_, final), = empirical_bayes.particle_flow(particles, beta, eta, [layers])
    measured = np.sort(np.linalg.eigvalsh(np.cov(final[0].numpy().T)))[::-1]
    np.testing.assert_allclose(measured, meanfield.covariance_eigenvalues(layers * eta, initial, beta)[0], rtol=0.05)
    assert not np.allclose(measured, initial, rtol=0.2)  # the flow moved them: the comparison has teeth


def test_particle_variance_follows_the_finite_beta_ode_in_tau_equal_l_eta_over_beta():
    """Particles from N(0, σ²) against dv/dτ = −2v/(v + 1/β) with τ = ℓη/β; the same ODE read in t = ℓη
    (the explainer's time) would be far off."""
    beta, eta, layers = 5.0, 0.05, 30  # τ = 0.3
    _, noisy = noisy_contexts(mixture([[0.0]]), 1, 4000, 0.25, seed=0)
    noisy = noisy.double()
    (_, particles), = empirical_bayes.particle_flow(noisy, beta, eta, [layers])
    initial, final = noisy.var(unbiased=False).item(), particles.var(unbiased=False).item()
    assert final == pytest.approx(meanfield.variance_at_time(layers * eta / beta, initial, beta), rel=0.05)
    assert final != pytest.approx(meanfield.variance_at_time(layers * eta, initial, beta), rel=0.5)


def test_count_clusters_splits_at_gaps():
    assert empirical_bayes.count_clusters(np.array([0.0, 0.01, 0.5, 0.52, 2.0]), gap=0.1) == 3
    assert empirical_bayes.count_clusters(np.array([1.0, 1.0]), gap=0.1) == 1
