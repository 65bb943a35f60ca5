"""The three in-context denoising tasks of Section 2.2 and their prompt samplers.

A prompt is L clean context tokens x_1..x_L in R^n plus a query x̃ = x_{L+1} + z with
z ~ N(0, σ_z² I_n); the target is x_{L+1} (Section 2.1, eq. 1). Every prompt draws its own
task (subspace, sphere or set of centres), and prompt i is generated from its own seed
sequence ``[seed, i]`` so that it does not depend on how many prompts are drawn or in what
chunks.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import ClassVar

import numpy as np


@dataclass(frozen=True)
class Prompts:
    """A batch of N prompts.

    context: (N, L, n) clean tokens x_1..x_L.
    query:   (N, n) corrupted token x̃ = x_{L+1} + z.
    target:  (N, n) clean token x_{L+1}.
    task:    per-prompt task parameters, each array with leading dimension N.
    """

    context: np.ndarray
    query: np.ndarray
    target: np.ndarray
    task: dict[str, np.ndarray]

    @property
    def n_prompts(self) -> int:
        return self.query.shape[0]

    def select(self, rows) -> "Prompts":
        """The prompts picked by a boolean mask, an index array or a slice."""
        return Prompts(self.context[rows], self.query[rows], self.target[rows],
                       {key: value[rows] for key, value in self.task.items()})


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
    sigma_z_sq: float

    name: ClassVar[str]

    @classmethod
    def from_config(cls, block: dict) -> "Task":
        """Build the task from a config case block, ignoring keys that are not task parameters."""
        return cls(**{f.name: block[f.name] for f in fields(cls)})

    def sample_tokens(self, rng: np.random.Generator, count: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Draw one task and `count` i.i.d. tokens from it: ((count, n), task parameters)."""
        raise NotImplementedError

    def sample(self, n_prompts: int, context_length: int, seed: int, start: int = 0) -> Prompts:
        """Draw prompts start..start+n_prompts−1, prompt i from ``np.random.default_rng([seed, i])``."""
        contexts, queries, targets, tasks = [], [], [], []
        for index in range(start, start + n_prompts):
            rng = np.random.default_rng([seed, index])
            tokens, task = self.sample_tokens(rng, context_length + 1)
            target = tokens[-1]
            noise = np.sqrt(self.sigma_z_sq) * rng.standard_normal(self.n)
            contexts.append(tokens[:-1])
            targets.append(target)
            queries.append(target + noise)
            tasks.append(task)
        stacked_task = {key: np.stack([t[key] for t in tasks]) for key in tasks[0]}
        return Prompts(np.stack(contexts), np.stack(queries), np.stack(targets), stacked_task)


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


TASKS: dict[str, type[Task]] = {cls.name: cls for cls in (LinearSubspace, Sphere, GaussianMixture)}


def make_task(block: dict) -> Task:
    """The task registered under ``block["task"]``, built from a config case block."""
    name = block["task"]
    if name not in TASKS:
        raise KeyError(f"unknown task {name!r}; registered tasks: {sorted(TASKS)}")
    return TASKS[name].from_config(block)
