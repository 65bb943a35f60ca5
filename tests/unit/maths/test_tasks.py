"""Sampler statistics for the three tasks (Section 2.2) and the two corruptions."""

import numpy as np
import pytest
from helpers import all_token_case, query_case

from icdenoise.maths.cases import make_case, transform_matrix, untransformed
from icdenoise.maths.tasks import GaussianMixture, LinearSubspace, Sphere, haar_orthonormal_basis, make_task


def test_haar_basis_is_orthonormal_and_unbiased():
    rng = np.random.default_rng(0)
    draws = np.stack([haar_orthonormal_basis(rng, 5, 3) for _ in range(20000)])
    np.testing.assert_allclose(np.einsum("bni,bnj->bij", draws, draws), np.broadcast_to(np.eye(3), (20000, 3, 3)), atol=1e-12)
    # Haar: every entry has mean 0 and variance 1/n; the sign correction removes QR's sign bias.
    assert abs(draws[:, 0, 0].mean()) < 4 * np.sqrt(1 / 5 / 20000)
    np.testing.assert_allclose((draws**2).mean(axis=0), np.full((5, 3), 1 / 5), atol=0.01)
    # The mean projector of a uniform k-dim subspace is (k/n) I.
    np.testing.assert_allclose(np.einsum("bni,bmi->nm", draws, draws) / 20000, 3 / 5 * np.eye(5), atol=0.01)


def test_linear_tokens_lie_in_the_subspace_with_variance_sigma0_sq():
    prompts = query_case(LinearSubspace(n=6, d=2, sigma0_sq=2.0), 0.5).sample(200, 50, seed=3)
    basis = prompts.task["basis"]
    projected = np.einsum("bnd,bmd,blm->bln", basis, basis, prompts.context)
    np.testing.assert_allclose(projected, prompts.context, atol=1e-12)
    coordinates = np.einsum("bnd,bln->bld", basis, prompts.context)
    assert coordinates.var() == pytest.approx(2.0, rel=0.03)
    noise = prompts.query - prompts.target
    assert noise.var() == pytest.approx(0.5, rel=0.05)
    assert abs(noise.mean()) < 4 * np.sqrt(0.5 / noise.size)


def test_sphere_tokens_have_radius_R_and_isotropic_second_moment():
    prompts = query_case(Sphere(n=5, d=2, radius=1.5), 0.1).sample(200, 100, seed=4)
    np.testing.assert_allclose(np.linalg.norm(prompts.context, axis=2), 1.5, rtol=1e-12)
    coordinates = np.einsum("bnd,bln->bld", prompts.task["basis"], prompts.context)
    np.testing.assert_allclose(np.linalg.norm(coordinates, axis=2), 1.5, rtol=1e-12)
    second_moment = np.einsum("bli,blj->ij", coordinates, coordinates) / (200 * 100)
    np.testing.assert_allclose(second_moment, 1.5**2 / 3 * np.eye(3), atol=0.02)


def test_gmm_centres_on_sphere_and_tokens_around_them():
    prompts = query_case(GaussianMixture(n=8, K=4, radius=1.0, sigma0_sq=0.01), 0.1).sample(100, 400, seed=5)
    centres = prompts.task["centres"]
    np.testing.assert_allclose(np.linalg.norm(centres, axis=2), 1.0, rtol=1e-12)
    np.testing.assert_allclose(prompts.task["weights"], 0.25)
    distance = np.linalg.norm(prompts.context[:, :, None, :] - centres[:, None, :, :], axis=3)
    nearest = distance.argmin(axis=2)
    offsets = prompts.context - np.take_along_axis(centres, nearest[:, :, None], axis=1)
    assert offsets.var() == pytest.approx(0.01, rel=0.05)
    frequencies = np.bincount(nearest.ravel(), minlength=4) / nearest.size
    np.testing.assert_allclose(frequencies, 0.25, atol=0.02)
    assert (prompts.context**2).sum(axis=2).mean() == pytest.approx(1.0 + 8 * 0.01, rel=0.02)


@pytest.mark.parametrize("corruption", ["query", "all_tokens"])
@pytest.mark.parametrize("task,block", [
    ("linear", {"n": 4, "d": 2, "sigma0_sq": 1.0, "L": 9}),
    ("sphere", {"n": 4, "d": 1, "radius": 1.0, "L": 9}),
    ("gmm", {"n": 4, "K": 3, "radius": 1.0, "sigma0_sq": 0.1, "L": 9}),
])
def test_prompt_i_depends_only_on_seed_and_index(task, block, corruption):
    case = make_case({"task": task, **block, "corruption": {"kind": corruption, "sigma_z_sq": 0.1}})
    whole = case.sample(6, 9, seed=11)
    piece = case.sample(2, 9, seed=11, start=3)
    np.testing.assert_array_equal(whole.context[3:5], piece.context)
    np.testing.assert_array_equal(whole.query[3:5], piece.query)
    other_seed = case.sample(2, 9, seed=12, start=3)
    assert not np.allclose(piece.context, other_seed.context)


def test_unknown_task_is_rejected():
    with pytest.raises(KeyError, match="torus"):
        make_task({"task": "torus"})


def test_transform_has_the_requested_condition_number_and_is_undone_exactly():
    matrix = transform_matrix(5, seed=3, condition_number=4.0)
    assert np.linalg.cond(matrix) == pytest.approx(4.0)
    block = {"task": "linear", "n": 5, "d": 2, "sigma0_sq": 2.0, "corruption": {"kind": "query", "sigma_z_sq": 1.0},
             "transform": {"seed": 3, "condition_number": 4.0}}
    transformed = make_case(block).sample(4, 7, seed=1)
    plain = query_case(make_task(block), 1.0).sample(4, 7, seed=1)
    np.testing.assert_allclose(transformed.context, plain.context @ matrix.T)
    np.testing.assert_array_equal(transformed.target, plain.target)
    restored = untransformed(transformed)
    np.testing.assert_allclose(restored.context, plain.context, atol=1e-12)
    np.testing.assert_allclose(restored.query, plain.query, atol=1e-12)
    assert "transform" not in restored.task


def test_query_corruption_keeps_the_context_clean_and_noises_only_the_query():
    task = GaussianMixture(n=3, K=2, radius=1.0, sigma0_sq=0.0001)
    prompts = query_case(task, 0.5).sample(2000, 6, seed=2)
    assert prompts.context.shape == (2000, 6, 3) and prompts.query.shape == prompts.target.shape == (2000, 3)
    noise = prompts.query - prompts.target
    assert noise.var() == pytest.approx(0.5, rel=0.05)
    distance = np.linalg.norm(prompts.context[:, :, None] - prompts.task["centres"][:, None], axis=3).min(axis=2)
    assert distance.max() < 0.1  # clean tokens sit within a few σ0 of a centre


def test_all_token_corruption_noises_every_token_and_targets_every_token():
    task = GaussianMixture(n=3, K=2, radius=1.0, sigma0_sq=0.01)
    prompts = all_token_case(task, 0.25).sample(500, 8, seed=3)
    assert prompts.query is prompts.context and prompts.context.shape == prompts.target.shape == (500, 8, 3)
    noise = prompts.context - prompts.target
    assert noise.var() == pytest.approx(0.25, rel=0.03)
    assert abs(noise.mean()) < 4 * np.sqrt(0.25 / noise.size)
    tokens = np.einsum("bti,btj->ij", noise, noise) / noise.shape[0] / noise.shape[1]
    np.testing.assert_allclose(tokens, 0.25 * np.eye(3), atol=0.02)  # isotropic, independent coordinates


def test_corruptions_share_the_task_draw_of_a_prompt():
    """Same seed and index: the same task parameters and clean tokens, whichever corruption follows."""
    task = Sphere(n=4, d=1, radius=1.0)
    query, every = query_case(task, 0.1).sample(3, 5, seed=4), all_token_case(task, 0.1).sample(3, 4, seed=4)
    np.testing.assert_array_equal(query.task["basis"], every.task["basis"])
    np.testing.assert_array_equal(query.context[:, :4], every.target)
