"""The closed-form baselines of a case (Section 2.3) scored on fresh prompts, never the training
dataset, by `icdenoise.maths.scoring` (which scores trained ensembles on the same prompts)."""

from __future__ import annotations

import pandas as pd

from icdenoise.maths.cases import make_case
from icdenoise.maths.estimators import closed_form_denoisers, expected_loss_per_coordinate
from icdenoise.maths.scoring import evaluate_denoisers


def evaluate_closed_forms(case_name: str, block: dict, context_length: int, n_prompts: int, seed: int, chunk_size: int) -> pd.DataFrame:
    """Monte-Carlo MSE/n of every closed form that applies to the configured case `block`.

    Columns: case, estimator, mse (Monte-Carlo mean), sem (its standard error), expected (the
    closed form where one exists, else NaN), n_prompts, L.
    """
    case = make_case(block)
    table = evaluate_denoisers(case_name, block, context_length, closed_form_denoisers(case), n_prompts, seed, chunk_size)
    table["expected"] = [expected_loss_per_coordinate(name, case.task, case.corruption.sigma_z_sq) for name in table["estimator"]]
    return table[["case", "estimator", "mse", "sem", "expected", "n_prompts", "L"]]
