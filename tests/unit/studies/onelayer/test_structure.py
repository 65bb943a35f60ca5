"""Appendix H: the optimum W_PV = α A⁻¹, W_KQ = β (A Aᵀ)⁻¹ against a least-squares fit."""

import numpy as np
import pytest

from icdenoise.maths.cases import make_case, transform_matrix
from icdenoise.studies.onelayer.structure import cosine_similarity, optimal_structure, structure_scale


def test_optimal_key_query_is_the_least_squares_fit_at_large_context():
    """With W_PV = α A⁻¹ fixed, x̂ = α A⁻¹ C_Y W ỹ is linear in W_KQ = W. Its least-squares fit
    over many transformed prompts with L large is β (A Aᵀ)⁻¹ with α β = 1/(σ0² + σ_z²)."""
    n, sigma0_sq, sigma_z_sq, alpha = 4, 2.0, 1.0, 0.5
    block = {"task": "linear", "n": n, "d": 2, "sigma0_sq": sigma0_sq, "corruption": {"kind": "query", "sigma_z_sq": sigma_z_sq},
             "transform": {"seed": 5, "condition_number": 3.0}}
    prompts = make_case(block).sample(3000, 4000, seed=9)
    matrix = transform_matrix(n, 5, 3.0)
    value = alpha * np.linalg.inv(matrix)
    second_moment = np.einsum("bli,blj->bij", prompts.context, prompts.context) / prompts.context.shape[1]
    left = np.einsum("ij,bjk->bik", value, second_moment)  # (N, n, n): x̂ = left @ W @ ỹ
    design = np.einsum("bik,bl->bikl", left, prompts.query).reshape(-1, n * n)  # ∂x̂_i / ∂W_kl
    fitted, *_ = np.linalg.lstsq(design, prompts.target.reshape(-1), rcond=None)
    fitted = fitted.reshape(n, n)
    expected = optimal_structure(matrix)["W_KQ"] / (alpha * (sigma0_sq + sigma_z_sq))
    assert cosine_similarity(fitted, expected) > 0.995
    assert structure_scale(fitted, optimal_structure(matrix)["W_KQ"]) * alpha == pytest.approx(1 / (sigma0_sq + sigma_z_sq), rel=0.03)


def test_optimal_structure_undoes_the_transform_exactly():
    matrix = transform_matrix(5, seed=1, condition_number=4.0)
    structure = optimal_structure(matrix)
    rng = np.random.default_rng(0)
    context, query = rng.standard_normal((30, 5)), rng.standard_normal(5)
    moved = context @ matrix.T
    transformed_output = structure["W_PV"] @ (moved.T @ moved) @ structure["W_KQ"] @ (matrix @ query)
    np.testing.assert_allclose(transformed_output, context.T @ context @ query, atol=1e-9)


def test_cosine_similarity_and_scale():
    base = np.arange(9.0).reshape(3, 3)
    assert cosine_similarity(base, -2 * base) == pytest.approx(-1.0)
    assert structure_scale(3 * base, base) == pytest.approx(3.0)
