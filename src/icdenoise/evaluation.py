"""Scoring the Bayes baselines (Section 2.3) on fresh prompts, as per-coordinate MSE."""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from .bayes import ESTIMATORS, expected_loss_per_coordinate
from .cases import sample_case, untransformed
from .tasks import make_task

log = logging.getLogger(__name__)


def squared_error_per_coordinate(prediction: np.ndarray, target: np.ndarray) -> np.ndarray:
    """(N,) ‖x̂ − x‖² / n for each prompt."""
    return np.mean((prediction - target) ** 2, axis=1)


def evaluate_baselines(
    case: str, block: dict, context_length: int, n_prompts: int, seed: int, chunk_size: int
) -> pd.DataFrame:
    """Monte-Carlo MSE/n of every estimator registered for the case's task on `n_prompts` fresh
    prompts of the configured case `block` (a transformed case is scored with A known).

    Columns: case, estimator, mse (Monte-Carlo mean), sem (its standard error), expected (the
    closed form where one exists, else NaN), n_prompts, L. Prompts are drawn in chunks, but each
    prompt has its own seed, so the numbers do not depend on `chunk_size`.
    """
    task = make_task(block)
    estimators = ESTIMATORS[task.name]
    errors: dict[str, list[np.ndarray]] = {name: [] for name in estimators}
    for start in range(0, n_prompts, chunk_size):
        prompts = untransformed(sample_case(block, min(chunk_size, n_prompts - start), context_length, seed, start=start))
        for name, estimator in estimators.items():
            errors[name].append(squared_error_per_coordinate(estimator(prompts, task), prompts.target))
        log.info("%s: scored %d/%d fresh prompts", case, start + prompts.n_prompts, n_prompts)
    rows = []
    for name, chunks in errors.items():
        values = np.concatenate(chunks)
        rows.append(
            {
                "case": case,
                "estimator": name,
                "mse": values.mean(),
                "sem": values.std(ddof=1) / np.sqrt(values.size),
                "expected": expected_loss_per_coordinate(task.name, name, task),
                "n_prompts": values.size,
                "L": context_length,
            }
        )
    return pd.DataFrame(rows)
