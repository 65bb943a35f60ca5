"""A configured case: a registered task (Section 2.2), a registered corruption, and optionally a
fixed invertible map A applied to every prompt (Appendix H: E = (X, x̃) → (A X, A x̃), the target
stays x).

Prompt i of a case is drawn from its own generator ``np.random.default_rng([seed, i])``: the task
draws the clean tokens, then the corruption draws the noise from the same generator. So a prompt
depends only on (seed, i), not on how many prompts are drawn or in what chunks.

Transformed prompts carry A in their task parameters (key ``transform``), so estimators that
know the task can undo it (`untransformed`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from icdenoise.maths.corruptions import Corruption, make_corruption
from icdenoise.maths.prompts import Prompts, stack_prompts
from icdenoise.maths.tasks import Task, haar_orthonormal_basis, make_task


def transform_matrix(n: int, seed: int, condition_number: float) -> np.ndarray:
    """A = U diag(s) Vᵀ with U, V Haar-random orthogonal and singular values s geometrically
    spaced from κ^{-1/2} to κ^{1/2}, so that cond(A) = κ exactly and |det A| = 1."""
    rng = np.random.default_rng(seed)
    left, right = haar_orthonormal_basis(rng, n, n), haar_orthonormal_basis(rng, n, n)
    singular_values = np.geomspace(condition_number**-0.5, condition_number**0.5, n)
    return left @ np.diag(singular_values) @ right.T


@dataclass(frozen=True)
class Case:
    """A task, a corruption and an optional transform A."""

    task: Task
    corruption: Corruption
    transform: np.ndarray | None = None

    def sample(self, n_prompts: int, context_length: int, seed: int, start: int = 0) -> Prompts:
        """Prompts start..start+n_prompts−1, prompt i from ``np.random.default_rng([seed, i])``."""
        pieces = [], [], [], []
        for index in range(start, start + n_prompts):
            rng = np.random.default_rng([seed, index])
            tokens, task = self.task.sample_tokens(rng, self.corruption.clean_tokens(context_length))
            for piece, value in zip(pieces, (*self.corruption.corrupt(rng, tokens, task), task)):
                piece.append(value)
        prompts = stack_prompts(*pieces)
        return prompts if self.transform is None else transform_prompts(prompts, self.transform)


def make_case(block: dict) -> Case:
    """The case of a config block: ``task`` and its parameters, ``corruption`` and ``transform``."""
    spec = block.get("transform")
    transform = None if spec is None else transform_matrix(block["n"], spec["seed"], spec["condition_number"])
    return Case(make_task(block), make_corruption(block["corruption"]), transform)


def transform_prompts(prompts: Prompts, matrix: np.ndarray) -> Prompts:
    """(X, x̃, x) → (A X, A x̃, x), recording A per prompt under task["transform"]."""
    context = prompts.context @ matrix.T
    query = context if prompts.query is prompts.context else prompts.query @ matrix.T
    count = prompts.n_prompts
    task = {**prompts.task, "transform": np.broadcast_to(matrix, (count, *matrix.shape)).copy()}
    return Prompts(context, query, prompts.target, task)


def untransformed(prompts: Prompts) -> Prompts:
    """Undo a recorded transform (A⁻¹ on context and query); untransformed prompts pass through."""
    if "transform" not in prompts.task:
        return prompts
    inverse_transposed = np.linalg.inv(prompts.task["transform"]).transpose(0, 2, 1)  # (N, n, n): A⁻ᵀ per prompt
    task = {key: value for key, value in prompts.task.items() if key != "transform"}
    context = prompts.context @ inverse_transposed
    if prompts.query is prompts.context:
        query = context
    elif prompts.query.ndim == 2:
        query = np.einsum("bi,bij->bj", prompts.query, inverse_transposed)
    else:
        query = prompts.query @ inverse_transposed
    return replace(prompts, context=context, query=query, task=task)
