"""Evaluation on fresh prompts (never the training dataset): the closed-form baselines of a case
(Section 2.3) and its trained ensembles, scored by `icdenoise.scoring` on the same prompts."""

from __future__ import annotations

import pandas as pd

from .cases import make_case
from .denoisers import Denoiser
from .estimators import closed_form_denoisers, expected_loss_per_coordinate
from .scoring import score_on_fresh_prompts


def evaluate_closed_forms(case_name: str, block: dict, context_length: int, n_prompts: int, seed: int, chunk_size: int) -> pd.DataFrame:
    """Monte-Carlo MSE/n of every closed form that applies to the configured case `block`.

    Columns: case, estimator, mse (Monte-Carlo mean), sem (its standard error), expected (the
    closed form where one exists, else NaN), n_prompts, L.
    """
    case = make_case(block)
    table = score_on_fresh_prompts(closed_form_denoisers(case), case, context_length, n_prompts, seed, chunk_size)
    table["expected"] = [expected_loss_per_coordinate(name, case.task, case.corruption.sigma_z_sq) for name in table["estimator"]]
    table.insert(0, "case", case_name)
    table["L"] = context_length
    return table[["case", "estimator", "mse", "sem", "expected", "n_prompts", "L"]]


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
