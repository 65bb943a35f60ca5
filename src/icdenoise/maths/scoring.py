"""Scoring denoisers: the per-coordinate MSE, MSE/n, of any set of denoisers on any prompts.

Losses are per coordinate, as torch's MSELoss computes them: the squared error averaged over the
target's tokens and coordinates (the paper's closed forms are totals, divided here by n).
`score` reports, for every denoiser and seed, the mean over prompts of the per-prompt MSE and its
standard error. The functions work on numpy arrays and torch tensors alike.
"""

from __future__ import annotations

import logging
from typing import Mapping

import numpy as np
import pandas as pd

from icdenoise.maths.cases import Case, make_case
from icdenoise.maths.denoisers import Denoiser
from icdenoise.maths.prompts import Prompts

log = logging.getLogger(__name__)


def squared_error_per_prompt(prediction, target):
    """(S, N): ‖x̂ − x‖²/(number of target coordinates) per seed and prompt.

    prediction (S, N, *shape), target (N, *shape): one row per seed, one column per prompt.
    """
    error = (prediction - target) ** 2
    return error.reshape(*error.shape[:2], -1).mean(-1)


def squared_error_per_seed(prediction, target):
    """(S,): the MSE per coordinate of each seed over a whole batch, reduced in one pass (the
    training loss and the recorded train/test losses). Equals squared_error_per_prompt(...).mean(-1)
    up to the order of the floating-point sum."""
    error = (prediction - target) ** 2
    return error.mean(tuple(range(1, error.ndim)))


def per_prompt_errors(denoisers: Mapping[str, Denoiser], prompts: Prompts) -> dict[str, np.ndarray]:
    """Each denoiser's (S, N) per-prompt MSE on the same prompts."""
    return {name: squared_error_per_prompt(denoiser.predict(prompts), prompts.target) for name, denoiser in denoisers.items()}


def summarise_errors(denoisers: Mapping[str, Denoiser], errors: Mapping[str, np.ndarray]) -> pd.DataFrame:
    """Columns estimator, [seed,] mse, sem, n_prompts: the mean over prompts of the per-prompt MSE and
    its standard error, one row per denoiser and seed (`seed` only where a denoiser has seeds)."""
    rows = []
    for name, values in errors.items():
        seeds = denoisers[name].seeds
        for index, per_prompt in enumerate(values):
            row = {"estimator": name} if seeds is None else {"estimator": name, "seed": seeds[index]}
            row.update(mse=per_prompt.mean(), sem=per_prompt.std(ddof=1) / np.sqrt(per_prompt.size), n_prompts=per_prompt.size)
            rows.append(row)
    return pd.DataFrame(rows)


def score(denoisers: Mapping[str, Denoiser], prompts: Prompts) -> pd.DataFrame:
    """Every denoiser on the same prompts (see `summarise_errors`)."""
    return summarise_errors(denoisers, per_prompt_errors(denoisers, prompts))


def score_on_fresh_prompts(
    denoisers: Mapping[str, Denoiser], case: Case, context_length: int, n_prompts: int, seed: int, chunk_size: int
) -> pd.DataFrame:
    """`score` on prompts 0..n_prompts−1 of the case drawn from `seed`, sampled `chunk_size` at a time.
    Each prompt has its own seed, so the prompts and the closed forms do not depend on `chunk_size`; a trained
    model's errors, computed by batched products, can differ in the last float64 bit between chunk sizes."""
    chunks: dict[str, list[np.ndarray]] = {name: [] for name in denoisers}
    for start in range(0, n_prompts, chunk_size):
        prompts = case.sample(min(chunk_size, n_prompts - start), context_length, seed, start=start)
        for name, errors in per_prompt_errors(denoisers, prompts).items():
            chunks[name].append(errors)
        log.info("scored %d/%d fresh prompts", start + prompts.n_prompts, n_prompts)
    return summarise_errors(denoisers, {name: np.concatenate(parts, axis=1) for name, parts in chunks.items()})


def evaluate_denoisers(
    case_name: str, block: dict, context_length: int, denoisers: dict[str, Denoiser], n_prompts: int, seed: int, chunk_size: int
) -> pd.DataFrame:
    """Any denoisers (e.g. trained ensembles) on the same fresh prompts as `evaluate_closed_forms`.
    Columns: case, estimator, [seed,] mse, sem, n_prompts, L."""
    case = make_case(block)
    table = score_on_fresh_prompts(denoisers, case, context_length, n_prompts, seed, chunk_size)
    table.insert(0, "case", case_name)
    table["L"] = context_length
    return table
