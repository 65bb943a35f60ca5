"""Tasks: distributions over token distributions p_X (Section 2.2). A task draws one p_X per
prompt (its subspace, sphere or set of centres) and i.i.d. clean tokens from it. What the network
sees is decided by a corruption (`icdenoise.maths.corruptions`), not by the task.

The registered tasks are `TASKS`; a task of one's own, outside the package, subclasses `UserTask` and is named in a
case as ``module.path:ClassName`` (`make_task`; docs/experiments.md).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, ClassVar

import numpy as np

if TYPE_CHECKING:
    from icdenoise.maths.prompts import Prompts


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


@dataclass(frozen=True)
class UserTask(Task):
    """A task of one's own, from outside the package (docs/experiments.md, "A task of your own"): a subclass,
    itself a ``@dataclass(frozen=True)`` whose fields are `n` and the task's parameters, named in a case as
    ``task: module.path:ClassName`` with its folder on PYTHONPATH; the case block's keys of those names set them.

    It implements, as every task, `sample_tokens(rng, count)`: one p_X and `count` i.i.d. clean tokens from it,
    ``((count, n) array, {parameter: array})``, drawn from `rng` alone. `rng` is the prompt's own generator,
    ``default_rng([seed, i])`` (icdenoise.maths.cases), from which the corruption then draws the noise, so that a
    prompt depends only on (seed, i). Each parameter is stored with the dataset (a column) and reaches `bayes`
    with a leading prompt axis.

    Optional, each checked before any job (icdenoise.pipeline.user_tasks):
    - `bayes(prompts, sigma_z_sq)`: (N, n), the posterior mean E[x | x̃, the prompt's parameters] of the clean
      token x behind each noisy query x̃ = x + z, z ~ N(0, σ_z² I_n), for queries ``prompts.query`` (N, n) and
      parameters ``prompts.task`` (N, …); under all-token corruption each noisy token comes as a query of its own.
      It is the case's `oracle`, the Bayes baseline of the leaderboard's ratios; without it the case has none.
    - `second_moment()`: E‖x‖², the zero predictor's expected loss;
    - `bayes_loss(sigma_z_sq)`: E‖bayes(x̃) − x‖², the oracle's expected loss.
    The two losses fill evaluate_bayes's `expected` column (NaN where a task gives none).
    """

    name: ClassVar[str] = "module.path:ClassName"  # each subclass's own, set when it is defined

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.name = f"{cls.__module__}:{cls.__qualname__}"

    def bayes(self, prompts: Prompts, sigma_z_sq: float) -> np.ndarray:
        """(N, n): the Bayes posterior mean of each query's clean token (optional)."""
        raise NotImplementedError

    def second_moment(self) -> float:
        """E‖x‖² where the task knows it (optional); NaN: unknown."""
        return float("nan")

    def bayes_loss(self, sigma_z_sq: float) -> float:
        """E‖bayes(x̃) − x‖² where the task knows it (optional); NaN: unknown."""
        return float("nan")


USER_TASK_OPTIONS = ("bayes", "second_moment", "bayes_loss")  # what a UserTask may implement besides sample_tokens
CASE_KEYS = frozenset({"task", "corruption", "L", "transform"})  # a case block's keys that are not its task's parameters


def task_class(name: str) -> type[Task]:
    """A registered task by its name, or a task of one's own by ``module.path:ClassName``."""
    if ":" not in name:
        return TASKS[name]
    module, cls = name.split(":")
    return getattr(importlib.import_module(module), cls)


def task_interface_problems(cls) -> list[str]:
    """What a class named as a task of one's own lacks: a `UserTask` subclass, a dataclass of its own (its
    parameters are its fields), implementing `sample_tokens`."""
    if not (isinstance(cls, type) and issubclass(cls, UserTask)):
        return [f"{cls!r} is not a subclass of icdenoise.maths.tasks.UserTask"]
    problems = []
    if "__dataclass_fields__" not in vars(cls):
        problems.append("it is not a dataclass of its own (decorate it with @dataclass(frozen=True), its parameters as fields)")
    if cls.sample_tokens is Task.sample_tokens:
        problems.append("it does not implement sample_tokens(rng, count)")
    return problems


def user_task_offers(cls: type[UserTask]) -> dict[str, bool]:
    """Which of the optional methods (USER_TASK_OPTIONS) a task of one's own implements."""
    return {method: getattr(cls, method) is not getattr(UserTask, method) for method in USER_TASK_OPTIONS}


def class_report(block: dict) -> dict:
    """What a case's task of one's own is, judged from its class alone: {"problems": what is wrong, in words;
    "parameters": the class's fields; "missing": those the block lacks; "unknown": the block's keys that are none of
    them nor a case's own keys (CASE_KEYS); "offers": which optional methods it implements}. Importing the class is
    the only code of the task it runs (icdenoise.maths.estimators.user_task_report then draws from it)."""
    report = {"problems": [], "parameters": [], "missing": [], "unknown": [], "offers": {}}
    try:
        cls = task_class(block["task"])
    except Exception as error:
        report["problems"] = [f"cannot import it ({type(error).__name__}: {error}; is its folder on PYTHONPATH?)"]
        return report
    report["problems"] = task_interface_problems(cls)
    if report["problems"]:
        return report
    report["offers"] = user_task_offers(cls)
    report["parameters"] = [field.name for field in fields(cls)]
    report["missing"] = [name for name in report["parameters"] if name not in block]
    report["unknown"] = [key for key in block if key not in report["parameters"] and key not in CASE_KEYS]
    return report


def make_task(block: dict) -> Task:
    """The task registered under ``block["task"]``, or a task of one's own named ``module.path:ClassName``
    (a `UserTask`), built from a config case block."""
    name = block["task"]
    if ":" in name:
        return task_class(name).from_config(block)
    if name not in TASKS:
        raise KeyError(f"unknown task {name!r}; registered tasks: {sorted(TASKS)}")
    return TASKS[name].from_config(block)
