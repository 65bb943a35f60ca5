"""Tasks of one's own, outside the package: named in a case as ``task: example_tasks:OffsetRing`` (or
``example_tasks:RotatedLaplace``) with this folder on PYTHONPATH (tests/integration/test_user_task.py).

- `OffsetRing`: per prompt, a circle of radius R around a centre c ~ N(0, σ_c² I_n) in a Haar-random plane through
  c; tokens uniform on it. Its Bayes posterior mean is eq. 6 of the paper with d = 1, around c.
- `RotatedLaplace`: per prompt, a Haar-random rotation Q of R^n; tokens x = Q s with s_j ~ Laplace(0, b) i.i.d. Its
  posterior mean has no closed form here, so it has no `bayes`: its case has no Bayes baseline.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from icdenoise.maths.tasks import UserTask, haar_orthonormal_basis


@dataclass(frozen=True)
class OffsetRing(UserTask):
    """Task parameters: ``centre`` (n,) and ``basis`` (n, 2), orthonormal columns spanning the ring's plane."""

    radius: float
    centre_sq: float  # σ_c², the variance of each coordinate of the centre

    def __post_init__(self):
        if self.n < 2:
            raise ValueError(f"a ring needs n ≥ 2, not n = {self.n}")

    def sample_tokens(self, rng, count):
        centre = np.sqrt(self.centre_sq) * rng.standard_normal(self.n)
        basis = haar_orthonormal_basis(rng, self.n, 2)
        angles = rng.uniform(0.0, 2 * np.pi, count)
        circle = self.radius * np.stack([np.cos(angles), np.sin(angles)], axis=1)  # (count, 2)
        return centre + circle @ basis.T, {"centre": centre, "basis": basis}

    def bayes(self, prompts, sigma_z_sq):
        """Only the query's part in the plane tells the angle: with y = Bᵀ(x̃ − c), the angle's posterior is von Mises
        with concentration κ = R‖y‖/σ_z², so E[x | x̃] = c + R I₁(κ)/I₀(κ) B y/‖y‖ (exponentially scaled Bessel
        functions: their ratio stays finite for any κ)."""
        centre, basis = prompts.task["centre"], prompts.task["basis"]  # (N, n), (N, n, 2)
        inside = np.einsum("bnd,bn->bd", basis, prompts.query - centre)  # (N, 2)
        norm = np.linalg.norm(inside, axis=1)
        kappa = self.radius * norm / sigma_z_sq
        ratio = special.i1e(kappa) / special.i0e(kappa)
        return centre + (self.radius * ratio / norm)[:, None] * np.einsum("bnd,bd->bn", basis, inside)

    def second_moment(self):
        return self.n * self.centre_sq + self.radius**2  # E‖c‖² + R², the ring being centred on c


@dataclass(frozen=True)
class RotatedLaplace(UserTask):
    """Task parameter: ``rotation`` (n, n), a Haar-random orthogonal matrix."""

    scale: float  # b: each coordinate s_j has density exp(−|s|/b)/(2b), variance 2b²

    def sample_tokens(self, rng, count):
        rotation = haar_orthonormal_basis(rng, self.n, self.n)
        return rng.laplace(0.0, self.scale, (count, self.n)) @ rotation.T, {"rotation": rotation}

    def second_moment(self):
        return 2 * self.n * self.scale**2


# Classes the check refuses (tests/integration/test_user_task.py): each lacks part of the interface.
class NotATask:
    """Not a UserTask."""


@dataclass(frozen=True)
class NoSampler(UserTask):
    """A UserTask that never says how to draw its tokens."""

    scale: float


@dataclass(frozen=True)
class GlobalRandom(RotatedLaplace):
    """Draws from numpy's global generator instead of the prompt's: prompts would depend on the order of drawing."""

    def sample_tokens(self, rng, count):
        return np.random.laplace(0.0, self.scale, (count, self.n)), {}
