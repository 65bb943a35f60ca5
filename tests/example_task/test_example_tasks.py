"""The example tasks' maths: OffsetRing's Bayes posterior mean is the paper's eq. 6 for a circle (d = 1) around its
centre, and beats every other guess on its prompts; both tasks' second moments match Monte Carlo."""

import numpy as np
import pytest
from example_tasks import OffsetRing, RotatedLaplace

from icdenoise.maths.bayes import sphere_posterior_mean
from icdenoise.maths.cases import make_case

RING = {"task": "example_tasks:OffsetRing", "n": 4, "radius": 1.0, "centre_sq": 0.5, "corruption": {"kind": "query", "sigma_z_sq": 0.1}}


def test_the_rings_posterior_mean_is_eq_6_for_a_circle_around_its_centre():
    case = make_case(RING)
    prompts = case.sample(50, 5, seed=0)
    centre = prompts.task["centre"]
    around = sphere_posterior_mean(prompts.query - centre, prompts.task["basis"], 1.0, 0.1)
    np.testing.assert_allclose(case.task.bayes(prompts, 0.1), centre + around, rtol=1e-10, atol=1e-12)


def test_the_rings_posterior_mean_beats_the_noisy_query_and_its_projection():
    case = make_case(RING)
    prompts = case.sample(4000, 5, seed=1)
    error = lambda estimate: np.mean((estimate - prompts.target) ** 2)  # noqa: E731
    centre, basis = prompts.task["centre"], prompts.task["basis"]
    projected = centre + np.einsum("bnd,bmd,bm->bn", basis, basis, prompts.query - centre)
    assert error(case.task.bayes(prompts, 0.1)) < error(projected) < error(prompts.query)


@pytest.mark.parametrize("task", [OffsetRing(n=4, radius=1.5, centre_sq=0.5), RotatedLaplace(n=3, scale=0.5)])
def test_each_tasks_second_moment_matches_monte_carlo(task):
    draws = np.concatenate([task.sample_tokens(np.random.default_rng([7, i]), 20)[0] for i in range(2000)])
    assert np.mean(np.sum(draws**2, axis=1)) == pytest.approx(task.second_moment(), rel=0.03)


def test_a_ring_needs_two_dimensions():
    with pytest.raises(ValueError, match="n ≥ 2"):
        OffsetRing(n=1, radius=1.0, centre_sq=0.5)
