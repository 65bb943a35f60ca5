"""Scalar shrinkage of the query, x̂ = c·x̃, a denoiser that ignores the context.

With query corruption (eq. 1 of Smart et al., 2025), x̃ = x + z, z ~ N(0, σ_z² I_n) independent of x, so
E‖c·x̃ − x‖² = (1 − c)² m + c² n σ_z², with m = E‖x‖² the task's second moment. Per coordinate:

    mse(c) = ((1 − c)² m + c² n σ_z²) / n,  minimal at c* = m / (m + n σ_z²).

For the linear task (m = d σ0²) this is the Bayes estimate's shrinkage σ0²/(σ0² + σ_z²) spread over all n
coordinates instead of the d of the subspace: the context's information about the subspace is what
attention adds.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from icdenoise.maths.cases import make_case
from icdenoise.maths.denoisers import Denoiser
from icdenoise.maths.prompts import Prompts
from icdenoise.maths.scoring import evaluate_denoisers


class ScaledQuery(Denoiser):
    """x̂ = c·x̃."""

    def __init__(self, scale: float):
        self.scale = scale

    def predict(self, prompts: Prompts) -> np.ndarray:
        return self.scale * prompts.query[None]


def expected_mse(scale: float, second_moment: float, n: int, sigma_z_sq: float) -> float:
    """mse(c) per coordinate, the module docstring's closed form."""
    return ((1 - scale) ** 2 * second_moment + scale**2 * n * sigma_z_sq) / n


def optimal_scale(second_moment: float, n: int, sigma_z_sq: float) -> float:
    """c* = m / (m + n σ_z²)."""
    return second_moment / (second_moment + n * sigma_z_sq)


def scale_table(case_name: str, block: dict, context_length: int, scales: list[float], evaluation: dict, chunk_size: int) -> pd.DataFrame:
    """Every scale's MSE/n on the case's fresh evaluation prompts (the leaderboard's), beside the closed
    form; c* is a column, so that the figure and the claim read it. chunk_size: prompts at a time (the config's
    execution.evaluation.chunk_size; the numbers do not depend on it)."""
    denoisers = {f"scale_{scale:g}": ScaledQuery(scale) for scale in scales}
    table = evaluate_denoisers(case_name, block, context_length, denoisers, evaluation["n_prompts"], evaluation["seed"],
                               chunk_size)
    case = make_case(block)
    n, sigma_z_sq, moment = block["n"], block["corruption"]["sigma_z_sq"], case.task.second_moment()
    table["scale"] = [float(name.removeprefix("scale_")) for name in table["estimator"]]
    table["expected"] = [expected_mse(scale, moment, n, sigma_z_sq) for scale in table["scale"]]
    table["optimal_scale"] = optimal_scale(moment, n, sigma_z_sq)
    return table


def leaderboard_denoisers(case: dict, scale: float | None = None) -> dict[str, Denoiser]:
    """The leaderboard's row: the query scaled by c* (or by `scale`)."""
    if scale is None:
        scale = optimal_scale(make_case(case).task.second_moment(), case["n"], case["corruption"]["sigma_z_sq"])
    return {"scaled_query": ScaledQuery(scale)}
