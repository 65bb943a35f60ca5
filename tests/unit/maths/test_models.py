"""Attention models (eqs. 11, 12), Proposition 3.2 and Theorem 3.1."""

import numpy as np
import pytest
import torch
from helpers import all_token_case, query_case

from icdenoise.maths import estimators
from icdenoise.maths.models import MODELS, LinearAttention, SoftmaxAttention, StackedSelfAttention
from icdenoise.maths.tasks import GaussianMixture, LinearSubspace, Sphere



@pytest.fixture(autouse=True)
def float64_by_default():
    """This module's tensors default to float64, restored after each test so that no other module sees it."""
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield
    torch.set_default_dtype(previous)


def naive_linear(w_kq, w_pv, context, query):
    """Eq. 11 token by token: (1/L) W_PV Σ_t x_t x_tᵀ W_KQ x̃."""
    length = context.shape[0]
    return w_pv @ sum(np.outer(x, x) for x in context) @ w_kq @ query / length


def naive_softmax(w_kq, w_pv, context, query):
    """Eq. 12 token by token: W_PV Σ_t x_t softmax_t(x_tᵀ W_KQ x̃)."""
    scores = np.array([x @ w_kq @ query for x in context])
    weights = np.exp(scores - scores.max())
    return w_pv @ (context.T @ weights) / weights.sum()


@pytest.fixture
def ensemble_inputs():
    rng = np.random.default_rng(0)
    seeds, batch, length, n = 3, 5, 7, 4
    return (
        rng.uniform(-0.5, 0.5, (seeds, n, n)),
        rng.uniform(-0.5, 0.5, (seeds, n, n)),
        rng.standard_normal((batch, length, n)),
        rng.standard_normal((batch, n)),
    )


@pytest.mark.parametrize("model_class,naive", [(LinearAttention, naive_linear), (SoftmaxAttention, naive_softmax)])
def test_model_matches_token_by_token_formula_on_both_paths(model_class, naive, ensemble_inputs):
    w_kq, w_pv, context, query = ensemble_inputs
    model = model_class.from_weights(torch.tensor(w_kq), torch.tensor(w_pv))
    features = model.prepare(torch.tensor(context))
    shared = model(features, torch.tensor(query)).detach().numpy()
    per_seed = model(features.expand(3, *features.shape), torch.tensor(query).expand(3, *query.shape)).detach().numpy()
    expected = np.array([[naive(w_kq[s], w_pv[s], context[b], query[b]) for b in range(5)] for s in range(3)])
    np.testing.assert_allclose(shared, expected, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(per_seed, expected, rtol=1e-10, atol=1e-12)


def test_proposition_3_2_small_kq_expansion(ensemble_inputs):
    """Eq. 15: F(E, (W_PV/ε, ε W_KQ)) = W_PV X̄/ε + (1/L) W_PV Σ_t x_t (x_t − X̄)ᵀ W_KQ x̃ + O(ε)."""
    w_kq, w_pv, context, query = (a[:1] if a.ndim == 3 and a.shape[0] == 3 else a for a in ensemble_inputs)
    mean = context.mean(axis=1, keepdims=True)
    centred_second_moment = np.einsum("bli,blj->bij", context, context - mean) / context.shape[1]
    first_order = np.einsum("ij,bjk,kl,bl->bi", w_pv[0], centred_second_moment, w_kq[0], query)
    residuals = []
    for eps in (1e-1, 1e-2, 1e-3):
        model = SoftmaxAttention.from_weights(torch.tensor(eps * w_kq), torch.tensor(w_pv / eps))
        output = model(model.prepare(torch.tensor(context)), torch.tensor(query))[0].detach().numpy()
        expansion = np.einsum("ij,bj->bi", w_pv[0], mean[:, 0]) / eps + first_order
        residuals.append(np.abs(output - expansion).max())
    assert residuals[1] < 0.15 * residuals[0] and residuals[2] < 0.15 * residuals[1]
    # With a centred context the O(1) term vanishes and softmax attention becomes eq. 11.
    centred = context - mean
    linear = LinearAttention.from_weights(torch.tensor(w_kq), torch.tensor(w_pv))
    softmax = SoftmaxAttention.from_weights(torch.tensor(1e-4 * w_kq), torch.tensor(w_pv / 1e-4))
    target = linear(linear.prepare(torch.tensor(centred)), torch.tensor(query)).detach().numpy()
    approx = softmax(softmax.prepare(torch.tensor(centred)), torch.tensor(query)).detach().numpy()
    np.testing.assert_allclose(approx, target, atol=1e-3 * np.abs(target).max())


def test_theorem_3_1_ideal_softmax_converges_to_bayes():
    """Eq. 13 (W_PV = I, W_KQ = I/σ_z²) → eq. 6 as L grows, for a sphere-supported p_X."""
    task, sigma_z_sq = Sphere(n=6, d=2, radius=1.0), 0.2
    gaps = []
    for length in (30, 300, 3000):
        prompts = query_case(task, sigma_z_sq).sample(200, length, seed=5)
        model = SoftmaxAttention.from_weights(torch.eye(6)[None] / sigma_z_sq, torch.eye(6)[None])
        output = model(model.prepare(torch.tensor(prompts.context)), torch.tensor(prompts.query))[0].detach().numpy()
        gaps.append(np.mean(np.sum((output - estimators.sphere_oracle(prompts, task, sigma_z_sq)) ** 2, axis=1)))
    assert gaps[0] > gaps[1] > gaps[2]
    assert gaps[2] < 0.05 * gaps[0]


def test_baseline_attention_forms_equal_the_models_at_ideal_weights():
    task = Sphere(n=5, d=2, radius=1.0)
    prompts = query_case(task, 0.25).sample(10, 40, seed=1)
    model = SoftmaxAttention.from_weights(torch.eye(5)[None] * 4.0, torch.eye(5)[None])
    output = model(model.prepare(torch.tensor(prompts.context)), torch.tensor(prompts.query))[0].detach().numpy()
    np.testing.assert_allclose(estimators.ideal_softmax(prompts, task, 0.25), output, rtol=1e-10)
    linear = LinearAttention.from_weights(torch.eye(5)[None] / 3.0, torch.eye(5)[None])
    linear_task = LinearSubspace(n=5, d=2, sigma0_sq=2.0)
    linear_prompts = query_case(linear_task, 1.0).sample(10, 40, seed=2)
    output = linear(linear.prepare(torch.tensor(linear_prompts.context)), torch.tensor(linear_prompts.query))[0]
    np.testing.assert_allclose(estimators.linear_empirical_covariance(linear_prompts, linear_task, 1.0), output.detach().numpy(), rtol=1e-10)


def naive_stacked(parameters, seed, tokens, layers):
    """Residual self-attention token by token: z_i ← z_i + W_PV Σ_j softmax_j((W_KQ z_i)·z_j) z_j."""
    for layer in range(1, layers + 1):
        w_kq, w_pv = parameters[f"W_KQ_{layer}"][seed], parameters[f"W_PV_{layer}"][seed]
        updated = []
        for z_i in tokens:
            scores = np.array([(w_kq @ z_i) @ z_j for z_j in tokens])
            weights = np.exp(scores - scores.max())
            updated.append(z_i + w_pv @ (tokens.T @ weights) / weights.sum())
        tokens = np.array(updated)
    return tokens


def test_stacked_self_attention_matches_the_token_by_token_recursion_for_every_layer():
    model = StackedSelfAttention.initialise([0, 1], 3, dtype=torch.float64, layers=3)
    prompts = all_token_case(GaussianMixture(n=3, K=2, radius=1.0, sigma0_sq=0.05), 0.2).sample(4, 6, seed=0)
    parameters = {name: value.detach().numpy() for name, value in model.weights.items()}
    with torch.no_grad():
        outputs = model.layer_outputs(torch.tensor(prompts.context)).numpy()  # (layers + 1, S, N, T, n)
    assert outputs.shape == (4, 2, 4, 6, 3)
    for layers in range(4):
        for seed in range(2):
            for prompt in range(4):
                expected = naive_stacked(parameters, seed, prompts.context[prompt], layers)
                np.testing.assert_allclose(outputs[layers, seed, prompt], expected, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(model.predict(prompts), outputs[-1], rtol=1e-12)


@pytest.mark.parametrize("architecture,options", [("linear", {}), ("softmax", {}), ("stacked_self_attention", {"layers": 2})])
def test_every_model_survives_the_long_weights_table(architecture, options):
    model = MODELS[architecture].initialise([7, 8, 9], 4, dtype=torch.float64, **options)
    frame = model.to_frame([7, 8, 9], "final")
    seeds, loaded = MODELS[architecture].from_frame(frame, "final")
    assert seeds == [7, 8, 9] and list(loaded.weights) == list(model.weights)
    for name, value in model.weights.items():
        torch.testing.assert_close(loaded.weights[name], value)


def test_initialisation_depends_on_the_seed_only_and_is_uniform_in_the_protocol_bound():
    first = SoftmaxAttention.initialise([0, 1], 4, dtype=torch.float64)
    again = LinearAttention.initialise([1], 4, dtype=torch.float64)
    torch.testing.assert_close(first.weights["W_KQ"][1], again.weights["W_KQ"][0])  # same seed, same draw
    assert not torch.allclose(first.weights["W_KQ"][0], first.weights["W_KQ"][1])
    assert all(value.abs().max() <= 0.5 for value in first.weights.values())  # U[−1/√n, 1/√n], n = 4


@pytest.mark.parametrize("model_class", [LinearAttention, SoftmaxAttention])
def test_hand_derived_gradient_equals_autograd(model_class):
    """set_minibatch_gradients of eqs. 11 and 12 (derived by hand) against autograd on the whole
    ensemble (EnsembleModel.set_minibatch_gradients), each seed on its own minibatch."""
    from icdenoise.maths.models import EnsembleModel
    from icdenoise.maths.training import MinibatchGather

    generator = torch.Generator().manual_seed(0)
    seeds, n, length, prompts, batch = 3, 4, 30, 20, 6
    model = model_class.from_weights(torch.randn(seeds, n, n, generator=generator),
                                          torch.randn(seeds, n, n, generator=generator))
    context = torch.randn(prompts, length, n, generator=generator)
    minibatch = MinibatchGather(model.prepare(context), torch.randn(prompts, n, generator=generator),
                                torch.randn(prompts, n, generator=generator))
    index = torch.stack([torch.randperm(prompts, generator=generator)[:batch] for _ in range(seeds)])
    model.set_minibatch_gradients(minibatch, index)
    by_hand = [parameter.grad.clone() for parameter in model.parameters()]
    model.zero_grad(set_to_none=True)
    EnsembleModel.set_minibatch_gradients(model, minibatch, index)
    for hand, auto in zip(by_hand, (parameter.grad for parameter in model.parameters())):
        assert auto.abs().max() > 1e-3  # far from a stationary point: a wrong term would show
        torch.testing.assert_close(hand, auto, rtol=1e-10, atol=1e-12)
