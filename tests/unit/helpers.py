"""Shared test helpers."""

from functools import lru_cache

import numpy as np

from icdenoise.maths import estimators
from icdenoise.maths.cases import Case
from icdenoise.maths.corruptions import AllTokenNoise, QueryNoise
from icdenoise.maths.tasks import Sphere


def query_case(task, sigma_z_sq: float) -> Case:
    """The core paper's setting: clean context, one query with noise of variance σ_z²."""
    return Case(task, QueryNoise(sigma_z_sq))


@lru_cache(maxsize=None)
def figure_3_sphere_losses(sphere_dim: int) -> tuple[float, float]:
    """Monte-Carlo MSE per coordinate, over 10,000 prompts (seed 1), of eq. 6's posterior mean and of eq. 6 with the
    authors' Bessel orders I_{7.5}/I_{6.5}, for Figure 3's sphere setting (n = 16, R = 1, σ_z² = 0.1) with a sphere
    of dimension `sphere_dim` (8 in Proposition 3's reading, 7 in "fixed norm in R^d")."""
    task = Sphere(n=16, d=sphere_dim, radius=1.0)
    prompts = query_case(task, 0.1).sample(10000, 1, seed=1)
    posterior_mean = np.mean((estimators.sphere_oracle(prompts, task, 0.1) - prompts.target) ** 2)
    authors = np.mean((estimators.sphere_oracle_authors_orders(prompts, task, 0.1) - prompts.target) ** 2)
    return float(posterior_mean), float(authors)


def all_token_case(task, sigma_z_sq: float) -> Case:
    """Every token noisy with variance σ_z², every token a target."""
    return Case(task, AllTokenNoise(sigma_z_sq))


def stopped_at_every_save_point(train, path):
    """`train(checkpoint)` run with a spent time budget (`Checkpoint(..., budget_s=0.0)`) until it returns: it stops at
    its first save point after where it started, saved, and a new start continues it; so it stops once at every save
    point. Returns its result and the stops; the finished run must have removed its checkpoint at `path`."""
    from icdenoise.pipeline.checkpoints import Checkpoint, Stopped

    stops = []
    while True:
        checkpoint = Checkpoint(path, {"run": "test"}, every_s=None, budget_s=0.0)
        try:
            result = train(checkpoint)
        except Stopped as stopped:
            checkpoint.close()
            assert "run the same command to continue" in str(stopped) and path.is_file()
            stops.append(checkpoint.last_step)
            continue
        checkpoint.finish()
        assert not path.exists()
        return result, stops
