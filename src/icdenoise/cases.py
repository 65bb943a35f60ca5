"""A configured case: a registered task (Section 2.2) and, optionally, a fixed invertible map A
applied to every prompt (Appendix H: E = (X, x̃) → (A X, A x̃), the target stays x_{L+1}).

Transformed prompts carry A in their task parameters (key ``transform``), so estimators that
know the task can undo it (`untransformed`).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .tasks import Prompts, haar_orthonormal_basis, make_task


def transform_matrix(n: int, seed: int, condition_number: float) -> np.ndarray:
    """A = U diag(s) Vᵀ with U, V Haar-random orthogonal and singular values s geometrically
    spaced from κ^{-1/2} to κ^{1/2}, so that cond(A) = κ exactly and |det A| = 1."""
    rng = np.random.default_rng(seed)
    left, right = haar_orthonormal_basis(rng, n, n), haar_orthonormal_basis(rng, n, n)
    singular_values = np.geomspace(condition_number**-0.5, condition_number**0.5, n)
    return left @ np.diag(singular_values) @ right.T


def case_transform(block: dict) -> np.ndarray | None:
    """The case's matrix A, or None for an untransformed case."""
    spec = block.get("transform")
    if spec is None:
        return None
    return transform_matrix(block["n"], spec["seed"], spec["condition_number"])


def transform_prompts(prompts: Prompts, matrix: np.ndarray) -> Prompts:
    """(X, x̃, x) → (A X, A x̃, x), recording A per prompt under task["transform"]."""
    count = prompts.n_prompts
    return Prompts(
        context=prompts.context @ matrix.T,
        query=prompts.query @ matrix.T,
        target=prompts.target,
        task={**prompts.task, "transform": np.broadcast_to(matrix, (count, *matrix.shape)).copy()},
    )


def untransformed(prompts: Prompts) -> Prompts:
    """Undo a recorded transform (A⁻¹ on context and query); untransformed prompts pass through."""
    if "transform" not in prompts.task:
        return prompts
    inverse_transposed = np.linalg.inv(prompts.task["transform"]).transpose(0, 2, 1)  # (N, n, n): A⁻ᵀ per prompt
    task = {key: value for key, value in prompts.task.items() if key != "transform"}
    return replace(prompts, context=prompts.context @ inverse_transposed, query=np.einsum("bi,bij->bj", prompts.query, inverse_transposed), task=task)


def sample_case(block: dict, n_prompts: int, context_length: int, seed: int, start: int = 0) -> Prompts:
    """Prompts start..start+n_prompts−1 of a configured case (task, then transform if any)."""
    prompts = make_task(block).sample(n_prompts, context_length, seed, start=start)
    matrix = case_transform(block)
    return prompts if matrix is None else transform_prompts(prompts, matrix)
