"""A batch of prompts: what a denoiser sees and what it must recover.

A corruption (`icdenoise.maths.corruptions`) turns a task's clean tokens into prompts:

- query-only corruption (the core paper, Section 2.1): L clean context tokens and one noisy query
  x̃ = x_{L+1} + z; the target is x_{L+1}. Shapes: context (N, L, n), query (N, n), target (N, n);
- all-token corruption: every one of the L tokens is noisy, y_i = x_i + z_i, and every token is a
  target. The noisy tokens are both the context and the queries: context = query = Y (N, L, n),
  target = X (N, L, n).

Predictions carry a leading seed axis: a denoiser returns (S, N, *target.shape[1:]).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Prompts:
    """N prompts.

    context: (N, L, n) tokens that serve as keys and values.
    query:   (N, n) or (N, Q, n) corrupted tokens to denoise.
    target:  clean versions of the queries, the shape of `query`.
    task:    per-prompt task parameters (subspace basis, radius, centres, ...), leading dimension N.
    """

    context: np.ndarray
    query: np.ndarray
    target: np.ndarray
    task: dict[str, np.ndarray]

    @property
    def n_prompts(self) -> int:
        return self.target.shape[0]

    def select(self, rows) -> "Prompts":
        """The prompts picked by a boolean mask, an index array or a slice (query stays the context
        when it was the context)."""
        context = self.context[rows]
        query = context if self.query is self.context else self.query[rows]
        return Prompts(context, query, self.target[rows], {key: value[rows] for key, value in self.task.items()})


def stack_prompts(contexts: list, queries: list, targets: list, tasks: list[dict]) -> Prompts:
    """One Prompts from per-prompt pieces (the query is the context when every piece says so)."""
    context = np.stack(contexts)
    query = context if all(q is c for q, c in zip(queries, contexts)) else np.stack(queries)
    task = {key: np.stack([t[key] for t in tasks]) for key in tasks[0]}
    return Prompts(context, query, np.stack(targets), task)
