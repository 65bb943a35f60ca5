"""In-context regression of the mssa study (Wang et al. 2025, Sec. 4.2.2): prompts, baselines, models, training."""

import math

import numpy as np
import pandas as pd
import pytest
import torch

from icdenoise.studies.mssa.regression import (
    baseline_predictions,
    error_table,
    lasso_weights,
    least_squares_weights,
    ridge_weights,
    sample_prompts,
)
from icdenoise.studies.mssa.transformers import (
    ARCHITECTURES,
    SubspaceSelfAttention,
    build_model,
    causal_attention,
    device_description,
    parameter_count,
    predict,
    train_model,
    written_out_causal_attention,
)

TINY = dict(d=4, width=16, heads=2, layers=2, max_examples=10)


def gaussian_problems(n_prompts: int, n_examples: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    generator = np.random.default_rng(seed)
    return generator.standard_normal((n_prompts, n_examples, d)), generator.standard_normal((n_prompts, n_examples))


def lasso_kkt_violation(x: np.ndarray, y: np.ndarray, weights: np.ndarray, lasso: float) -> float:
    """Largest violation of |X_jᵀ(y − Xw)|/m ≤ λ, with equality and w_j's sign on the support."""
    correlation = np.einsum("nid,ni->nd", x, y - np.einsum("nid,nd->ni", x, weights)) / x.shape[1]
    on_support = weights != 0
    violation = np.where(on_support, np.abs(correlation - lasso * np.sign(weights)), np.maximum(np.abs(correlation) - lasso, 0.0))
    return float(violation.max())


# prompts


def test_prompts_do_not_depend_on_batching_and_seeds_differ():
    whole = sample_prompts("sparse", 6, 2, 10, 5, seed=3)
    parts = [sample_prompts("sparse", 6, 2, 4, 5, seed=3), sample_prompts("sparse", 6, 2, 6, 5, seed=3, start=4)]
    for full, first, second in zip(whole, *parts):
        assert torch.equal(full, torch.cat([first, second]))
    assert not torch.equal(whole[0], sample_prompts("sparse", 6, 2, 10, 5, seed=4)[0])


@pytest.mark.parametrize("task, expected_nonzeros", [("linear", 8), ("sparse", 3)])
def test_labels_are_linear_in_the_inputs_with_the_task_sparsity(task, expected_nonzeros):
    xs, ys = sample_prompts(task, 8, 3, 20, 30, seed=0)
    assert xs.dtype == ys.dtype == torch.float32 and xs.shape == (20, 30, 8) and ys.shape == (20, 30)
    weights = least_squares_weights(xs.double().numpy(), ys.double().numpy())
    assert np.allclose(np.einsum("nkd,nd->nk", xs.double().numpy(), weights), ys.numpy(), atol=1e-4)
    assert ((np.abs(weights) > 1e-4).sum(axis=1) == expected_nonzeros).all()


def test_tasks_share_inputs_at_one_seed():
    assert torch.equal(sample_prompts("linear", 8, 3, 5, 6, seed=1)[0], sample_prompts("sparse", 8, 3, 5, 6, seed=1)[0])


# baselines


def test_least_squares_is_exact_from_d_examples_and_minimum_norm_below():
    xs, ys = sample_prompts("linear", 5, 3, 50, 12, seed=0)
    predictions = baseline_predictions("least_squares", xs, ys)
    assert predictions[:, 0] == pytest.approx(0.0)
    np.testing.assert_allclose(predictions[:, 5:], ys.numpy()[:, 5:], atol=1e-4)
    x, y = xs.double().numpy()[:, :3], ys.double().numpy()[:, :3]
    minimum_norm = np.stack([np.linalg.lstsq(x[n], y[n], rcond=None)[0] for n in range(len(x))])
    np.testing.assert_allclose(least_squares_weights(x, y), minimum_norm, atol=1e-10)
    assert np.abs(predictions[:, 1:5] - ys.numpy()[:, 1:5]).mean() > 0.1


@pytest.mark.parametrize("n_examples", [3, 9])
def test_ridge_matches_the_closed_form_and_tends_to_least_squares(n_examples):
    x, y = gaussian_problems(4, n_examples, 6, seed=1)
    for n in range(len(x)):
        closed_form = np.linalg.solve(x[n].T @ x[n] + 0.7 * np.eye(6), x[n].T @ y[n])
        np.testing.assert_allclose(ridge_weights(x, y, 0.7)[n], closed_form, atol=1e-10)
    np.testing.assert_allclose(ridge_weights(x, y, 1e-9), least_squares_weights(x, y), atol=1e-6)
    assert not np.allclose(ridge_weights(x, y, 0.7), least_squares_weights(x, y), atol=1e-3)


def test_ridge_baseline_predicts_from_the_earlier_examples_only():
    xs, ys = sample_prompts("linear", 4, 3, 3, 7, seed=2)
    predictions = baseline_predictions("ridge", xs, ys, ridge=0.5)
    x, y = xs.double().numpy(), ys.double().numpy()
    expected = np.einsum("nd,nd->n", x[:, 4], ridge_weights(x[:, :4], y[:, :4], 0.5))
    np.testing.assert_allclose(predictions[:, 4], expected, atol=1e-12)


@pytest.mark.parametrize("n_examples, lasso", [(4, 0.05), (12, 0.1), (30, 0.002)])
def test_lasso_satisfies_its_kkt_conditions(n_examples, lasso):
    x, y = gaussian_problems(40, n_examples, 8, seed=n_examples)
    weights = lasso_weights(x, y, lasso)
    assert lasso_kkt_violation(x, y, weights, lasso) < 1e-9
    assert (weights != 0).any(axis=1).all() and (weights == 0).any()


def test_lasso_kkt_check_can_fail():
    x, y = gaussian_problems(5, 12, 8, seed=0)
    assert lasso_kkt_violation(x, y, lasso_weights(x, y, 0.1) * 1.01, 0.1) > 1e-4
    assert lasso_kkt_violation(x, y, least_squares_weights(x, y), 0.1) > 1e-2


def test_lasso_is_zero_above_the_largest_correlation():
    x, y = gaussian_problems(5, 6, 4, seed=0)
    largest = np.abs(np.einsum("nid,ni->nd", x, y) / 6).max()
    assert (lasso_weights(x, y, largest * 1.001) == 0).all()


def test_lasso_recovers_the_support_of_a_sparse_problem():
    generator = np.random.default_rng(0)
    truth = np.zeros((30, 20))
    for prompt in truth:
        prompt[generator.choice(20, size=3, replace=False)] = generator.choice([-1, 1], size=3) * generator.uniform(1, 2, size=3)
    x = generator.standard_normal((30, 60, 20))
    weights = lasso_weights(x, np.einsum("nid,nd->ni", x, truth), 0.01)
    np.testing.assert_array_equal(weights != 0, truth != 0)
    assert np.abs(weights - truth).max() < 0.05


def test_error_table_normalises_by_the_label_second_moment():
    xs, ys = sample_prompts("sparse", 10, 3, 4000, 3, seed=0)
    table = error_table({"zero": np.zeros(ys.shape), "exact": ys.numpy()}, ys, "sparse", 10, 3)
    assert list(table.columns) == ["model", "examples", "mse", "sem", "normalized_mse", "normalized_sem"]
    zero = table[table["model"] == "zero"]
    assert ((zero["normalized_mse"] - 1).abs() < 4 * zero["normalized_sem"]).all()
    assert (table.loc[table["model"] == "exact", "mse"] == 0).all()
    np.testing.assert_allclose(zero["normalized_mse"] * 3, zero["mse"])


# models


@pytest.mark.parametrize("architecture", ARCHITECTURES)
def test_predictions_are_causal(architecture):
    model = build_model(architecture, **TINY, seed=0)
    xs, ys = sample_prompts("linear", 4, 3, 3, 8, seed=0)
    changed_xs, changed_ys = xs.clone(), ys.clone()
    changed_xs[:, 5:] += 1.0
    changed_ys[:, 4:] -= 2.0  # y_4 comes after x_4, so the prediction at x_4 may not read it either
    before, after = predict(model, xs, ys), predict(model, changed_xs, changed_ys)
    np.testing.assert_allclose(before[:, :5], after[:, :5], atol=1e-6, rtol=0)
    assert np.abs(before[:, 5:] - after[:, 5:]).max() > 1e-4


def test_fused_attention_equals_the_written_out_softmax():
    queries, keys, values = torch.randn(3, 2, 2, 7, 5).unbind(0)
    torch.testing.assert_close(causal_attention(queries, keys, values), written_out_causal_attention(queries, keys, values))


def eq4_reference(tokens: torch.Tensor, subspaces: torch.Tensor, output: torch.Tensor, heads: int) -> torch.Tensor:
    """W_O [U_kᵀZ φ((U_kᵀZ)ᵀ(U_kᵀZ)/√p)]_k in the paper's layout (tokens as columns, φ a causal column softmax)."""
    columns = tokens.transpose(-1, -2)  # (B, D, N)
    width, length = columns.shape[-2:]
    p = width // heads
    blocks = subspaces.reshape(width, heads, p)  # U_k = blocks[:, k]
    projected = torch.einsum("dkp,bdn->bkpn", blocks, columns)
    similarity = torch.einsum("bkpj,bkpi->bkji", projected, projected) / math.sqrt(p)  # row j (key), column i (query)
    allowed = torch.ones(length, length, dtype=torch.bool).tril().T  # j ≤ i
    membership = torch.softmax(similarity.masked_fill(~allowed, float("-inf")), dim=-2)
    heads_out = torch.einsum("bkpj,bkji->bkpi", projected, membership).reshape(len(tokens), width, length)
    return torch.einsum("ed,bdn->ben", output, heads_out).transpose(-1, -2)


def test_mssa_layer_is_eq4_with_a_causal_softmax():
    torch.manual_seed(0)
    attention = SubspaceSelfAttention(width=12, heads=3)
    tokens = torch.randn(2, 7, 12)
    subspaces = attention.subspaces.weight.T  # [U_1, …, U_K], D × D
    torch.testing.assert_close(attention(tokens), eq4_reference(tokens, subspaces, attention.output.weight, 3))
    with torch.no_grad():
        attention.output.weight.copy_(subspaces)  # W_O = [U_1, …, U_K]: eq. (4)'s Σ_k U_k U_kᵀ Z φ(·)
    literal = eq4_reference(tokens, subspaces, subspaces, 3)
    torch.testing.assert_close(attention(tokens), literal)
    assert not torch.allclose(attention(tokens), eq4_reference(tokens, subspaces, torch.eye(12), 3), atol=1e-3)


def per_layer_parameters(architecture: str, width: int) -> int:
    sizes = dict(d=20, width=width, heads=4, max_examples=10, seed=0)
    return parameter_count(build_model(architecture, layers=2, **sizes)) - parameter_count(build_model(architecture, layers=1, **sizes))


def test_parameter_counts_per_layer():
    width = 32
    assert per_layer_parameters("mssa", width) == 2 * width**2 + 2 * width  # U, W_O; one LayerNorm
    assert per_layer_parameters("mhsa", width) == 4 * width**2 + 2 * width  # W_Q, W_K, W_V, W_O; one LayerNorm
    assert per_layer_parameters("transformer", width) == 12 * width**2 + 9 * width  # + MLP 8D² + 5D, second LayerNorm
    assert per_layer_parameters("mhsa", width) - per_layer_parameters("mssa", width) == 2 * width**2


def test_table5_gap_between_mhsa_and_mssa():
    sizes = dict(d=20, width=128, heads=8, layers=32, max_examples=40, seed=0)
    gap = parameter_count(build_model("mhsa", **sizes)) - parameter_count(build_model("mssa", **sizes))
    assert gap == 32 * 2 * 128**2
    assert abs(gap - (8.55e6 - 7.5e6)) <= 0.055e6  # Table 5 rounds 7.5M to 0.1M


def test_initialisation_follows_the_seed():
    first, again, other = (build_model("mssa", **TINY, seed=seed).state_dict() for seed in (1, 1, 2))
    assert all(torch.equal(first[name], again[name]) for name in first)
    assert not torch.equal(first["blocks.0.attention.subspaces.weight"], other["blocks.0.attention.subspaces.weight"])


def test_predict_in_chunks_equals_one_forward_pass():
    model = build_model("transformer", **TINY, seed=0)
    xs, ys = sample_prompts("linear", 4, 3, 7, 6, seed=0)
    with torch.no_grad():
        whole = model(xs, ys).numpy()
    np.testing.assert_allclose(predict(model, xs, ys, chunk=3), whole, atol=1e-6, rtol=0)


# training


def short_run(architecture: str, seed: int, steps: int = 4, learning_rate: float = 1e-3) -> pd.DataFrame:
    model = build_model(architecture, **TINY, seed=seed)
    return train_model(model, "linear", 4, 2, 10, steps, 16, learning_rate, 10.0, seed, record_every=1)


@pytest.mark.parametrize("architecture", ARCHITECTURES)
def test_same_seed_gives_the_same_training_curve(architecture):
    first, again, other = short_run(architecture, 0), short_run(architecture, 0), short_run(architecture, 1)
    pd.testing.assert_frame_equal(first, again, check_exact=True)
    assert list(first.columns) == ["step", "loss", "normalized_loss"] and list(first["step"]) == [0, 1, 2, 3]
    assert not np.allclose(first["loss"], other["loss"])


def test_a_short_training_run_lowers_the_loss():
    """One-dimensional regression (y = w·x) is learnt in context within a few hundred steps."""
    model = build_model("transformer", d=1, width=16, heads=2, layers=2, max_examples=8, seed=0)
    curve = train_model(model, "linear", 1, 1, 8, 600, 32, 3e-3, 10.0, seed=0, record_every=1)
    assert curve["normalized_loss"].iloc[-100:].mean() < 0.8 * curve["normalized_loss"].iloc[:50].mean()


def test_the_device_a_job_trained_on_is_its_type_and_for_a_gpu_its_name(monkeypatch):
    assert device_description(torch.device("cpu")) == "cpu" and device_description("cpu") == "cpu"
    asked = []
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda device=None: asked.append(device) or "NVIDIA H100 80GB HBM3")
    assert device_description(torch.device("cuda")) == "cuda (NVIDIA H100 80GB HBM3)"
    assert device_description("cuda:1") == "cuda (NVIDIA H100 80GB HBM3)" and asked[-1] == torch.device("cuda:1")
