"""Tasks: distributions over token distributions p_X (Section 2.2). A task draws one p_X per
prompt (its subspace, sphere or set of centres) and i.i.d. clean tokens from it. What the network
sees is decided by a corruption (`icdenoise.maths.corruptions`), not by the task.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import ClassVar

import numpy as np


def haar_orthonormal_basis(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    """An (n, k) matrix whose columns span a Haar-uniform random k-dim subspace of R^n.

    QR of a standard Gaussian matrix, with the signs of R's diagonal moved into Q so that
    the distribution is exactly Haar (Mezzadri 2007), not merely rotation-invariant in span.
    """
    gaussian = rng.standard_normal((n, k))
    q, r = np.linalg.qr(gaussian)
    return q * np.sign(np.diag(r))


def uniform_on_sphere(rng: np.random.Generator, count: int, dim: int, radius: float) -> np.ndarray:
    """`count` points uniform on the radius-`radius` sphere in R^dim, shape (count, dim)."""
    gaussian = rng.standard_normal((count, dim))
    return radius * gaussian / np.linalg.norm(gaussian, axis=1, keepdims=True)


@dataclass(frozen=True)
class Task:
    """Base class: a distribution over token distributions p_X (the task distribution D)."""

    n: int

    name: ClassVar[str]

    @classmethod
    def from_config(cls, block: dict) -> "Task":
        """Build the task from a config case block, ignoring keys that are not task parameters."""
        return cls(**{f.name: block[f.name] for f in fields(cls)})

    def sample_tokens(self, rng: np.random.Generator, count: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Draw one task and `count` i.i.d. clean tokens from it: ((count, n), task parameters)."""
        raise NotImplementedError

    def second_moment(self) -> float:
        """E‖x‖², the total loss of the zero predictor."""
        raise NotImplementedError


@dataclass(frozen=True)
class LinearSubspace(Task):
    """Section 2.2.1: x = P y, y ~ N(0, σ0² I_n), P the projector onto a random d-dim subspace.

    Task parameter: ``basis`` (n, d), orthonormal columns spanning the subspace (P = basis basisᵀ).
    """

    d: int
    sigma0_sq: float

    name: ClassVar[str] = "linear"

    def sample_tokens(self, rng, count):
        basis = haar_orthonormal_basis(rng, self.n, self.d)
        coordinates = np.sqrt(self.sigma0_sq) * rng.standard_normal((count, self.d))
        return coordinates @ basis.T, {"basis": basis}

    def second_moment(self) -> float:
        return self.d * self.sigma0_sq


@dataclass(frozen=True)
class Sphere(Task):
    """Section 2.2.2: uniform on the radius-R d-sphere inside a random (d+1)-dim subspace.

    Task parameters: ``basis`` (n, d+1) spanning the subspace V, and ``radius`` R.
    """

    d: int
    radius: float

    name: ClassVar[str] = "sphere"

    def sample_tokens(self, rng, count):
        basis = haar_orthonormal_basis(rng, self.n, self.d + 1)
        coordinates = uniform_on_sphere(rng, count, self.d + 1, self.radius)
        return coordinates @ basis.T, {"basis": basis, "radius": np.float64(self.radius)}

    def second_moment(self) -> float:
        return self.radius**2


@dataclass(frozen=True)
class GaussianMixture(Task):
    """Section 2.2.3: K equal-weight isotropic Gaussians N(μ_a, σ0² I_n), centres uniform on the
    radius-R sphere in R^n.

    Task parameters: ``centres`` (K, n) and ``weights`` (K,).
    """

    K: int
    radius: float
    sigma0_sq: float

    name: ClassVar[str] = "gmm"

    def sample_tokens(self, rng, count):
        centres = uniform_on_sphere(rng, self.K, self.n, self.radius)
        components = rng.integers(self.K, size=count)
        noise = np.sqrt(self.sigma0_sq) * rng.standard_normal((count, self.n))
        weights = np.full(self.K, 1.0 / self.K)
        return centres[components] + noise, {"centres": centres, "weights": weights}

    def second_moment(self) -> float:
        return self.radius**2 + self.n * self.sigma0_sq


@dataclass(frozen=True)
class FixedMixture(Task):
    """A known prior, the same for every prompt: K equal-weight components N(μ_a, σ0² I_n) with the
    configured centres, point masses when σ0² = 0 (the all-token study's two-mode priors).

    Task parameters: ``centres`` (K, n) and ``weights`` (K,), as for `GaussianMixture`.
    """

    centres: tuple[tuple[float, ...], ...]
    sigma0_sq: float

    name: ClassVar[str] = "mixture"

    @classmethod
    def from_config(cls, block: dict) -> "FixedMixture":
        return cls(n=block["n"], centres=tuple(tuple(map(float, centre)) for centre in block["centres"]), sigma0_sq=block["sigma0_sq"])

    def sample_tokens(self, rng, count):
        centres = np.array(self.centres, dtype=float)
        components = rng.integers(len(centres), size=count)
        noise = np.sqrt(self.sigma0_sq) * rng.standard_normal((count, self.n))
        return centres[components] + noise, {"centres": centres, "weights": np.full(len(centres), 1.0 / len(centres))}

    def second_moment(self) -> float:
        return float(np.mean(np.sum(np.square(self.centres), axis=1))) + self.n * self.sigma0_sq


@dataclass(frozen=True)
class LowRankMixture(Task):
    """The signal part of Wang et al. (2025), Definition 2.1, with orthogonal subspaces (their eq. 7):
    K subspaces of dimension p in R^n with orthonormal bases U_1..U_K, and token i of component k
    equal to U_k a_i, a_i ~ N(0, I_p). Tokens are split into K equal consecutive blocks C_1..C_K (the
    theorem's N_k = N/K; sizes differ by at most one when K does not divide the count). Definition
    2.1's noise on the other subspaces is the `off_subspace` corruption.

    Task parameter: ``bases`` (K, n, p), the K orthonormal bases, jointly orthonormal (Kp ≤ n).
    """

    K: int
    p: int

    name: ClassVar[str] = "low_rank_mixture"

    def sample_tokens(self, rng, count):
        bases = self.draw_bases(rng)
        coordinates = rng.standard_normal((count, self.p))
        return np.einsum("inp,ip->in", bases[self.labels(count)], coordinates), {"bases": bases}

    def draw_bases(self, rng: np.random.Generator) -> np.ndarray:
        """(K, n, p): the columns of one Haar-random (n, Kp) orthonormal matrix, p per subspace."""
        return haar_orthonormal_basis(rng, self.n, self.K * self.p).reshape(self.n, self.K, self.p).transpose(1, 0, 2)

    def labels(self, count: int) -> np.ndarray:
        """The component of each of `count` tokens: K consecutive blocks of (nearly) equal size."""
        return np.arange(count) * self.K // count

    def second_moment(self) -> float:
        return float(self.p)


TASKS: dict[str, type[Task]] = {cls.name: cls for cls in (LinearSubspace, Sphere, GaussianMixture, FixedMixture, LowRankMixture)}


def make_task(block: dict) -> Task:
    """The task registered under ``block["task"]``, built from a config case block."""
    name = block["task"]
    if name not in TASKS:
        raise KeyError(f"unknown task {name!r}; registered tasks: {sorted(TASKS)}")
    return TASKS[name].from_config(block)
