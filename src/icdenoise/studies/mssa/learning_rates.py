"""The paper's learning-rate grid for Fig. 6 (Sec. 4.2.2 and App. C.2: "the same grid search over learning rates in
{1e-4, 5e-5, 2e-4, 4e-4}, and clipping the gradient norm in {5.0, 10.0, 50.0}"): its points, a diverged point's record,
and the grid's table. Not part of the `mssa` target or its ledger; `snakemake mssa_lr_grid` builds it
(docs/mssa.md, "The learning-rate grid").

A point is one model trained on one task from one seed at one (learning rate, clipping norm), with every other
setting the regression block's. The point at the block's own learning rate and clipping is the `mssa` target's own
training (`shared`), which the grid reads rather than trains again. A point whose training diverges is a row that says
so (`status` diverged, the step and the loss), never a failed build.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

STATUS_TRAINED, STATUS_DIVERGED = "trained", "diverged"


def wildcard(value: float) -> str:
    """A learning rate or clipping norm as its path wildcard: Python's shortest round-trip text (5e-05, 10.0)."""
    return repr(float(value))


def grid_points(regression: dict, grid: dict) -> list[dict]:
    """Every point of `grid` (learning_rates, clips) for every task, model and seed of the regression block, in
    that order; `shared`: the point is the block's own learning rate and clipping."""
    return [{"task": task, "model": model, "learning_rate": float(rate), "clip": float(clip), "seed": seed,
             "shared": float(rate) == float(regression["learning_rate"]) and float(clip) == float(regression["clip"])}
            for task in regression["tasks"] for model in regression["models"] for rate in grid["learning_rates"]
            for clip in grid["clips"] for seed in regression["seeds"]]


def errors_path(point: dict, own: str, grid: str) -> str:
    """A point's errors table: the `own` pattern (train_mssa_regression's) at the block's own learning rate and
    clipping, else the `grid` pattern (train_mssa_regression_grid_point's), its wildcards filled."""
    return (own if point["shared"] else grid).format(
        regression_task=point["task"], architecture=point["model"], training_seed=point["seed"],
        learning_rate=wildcard(point["learning_rate"]), clip=wildcard(point["clip"]))


def divergence_record(error, task: str, model: str, seed: int) -> pd.DataFrame:
    """A diverged training's row in place of its errors: where it stopped (`TrainingDiverged.step`, `.loss`)."""
    return pd.DataFrame({"task": [task], "model": [model], "seed": [seed], "status": [STATUS_DIVERGED],
                         "divergence_step": [error.step], "divergence_loss": [np.nan if error.loss is None else float(error.loss)],
                         "examples": [np.nan], "normalized_mse": [np.nan]}).astype({"divergence_step": "Int64"})


def empty_curve(task: str, model: str, seed: int) -> pd.DataFrame:
    """A diverged training's curve: its columns, no rows."""
    return pd.DataFrame({"step": pd.Series(dtype="int64"), "loss": pd.Series(dtype=float),
                         "normalized_loss": pd.Series(dtype=float), "task": pd.Series(dtype=object),
                         "model": pd.Series(dtype=object), "seed": pd.Series(dtype="int64")})


def grid_table(points: list[dict], errors: list[pd.DataFrame]) -> pd.DataFrame:
    """One row per point: task, model, learning_rate, clip, seed, shared, status, the normalized test MSE at the
    most in-context examples (NaN where the training diverged), divergence_step and divergence_loss (NA where it
    did not). `errors[i]` is point i's errors table (icdenoise.studies.mssa.regression.error_table) or its
    divergence record."""
    rows = []
    for point, table in zip(points, errors, strict=True):
        diverged = "status" in table and (table["status"] == STATUS_DIVERGED).any()
        final = np.nan if diverged else float(table.loc[table["examples"].idxmax(), "normalized_mse"])
        rows.append({**point, "status": STATUS_DIVERGED if diverged else STATUS_TRAINED, "normalized_mse": final,
                     "divergence_step": table["divergence_step"].iloc[0] if diverged else pd.NA,
                     "divergence_loss": float(table["divergence_loss"].iloc[0]) if diverged else np.nan})
    return pd.DataFrame(rows).astype({"divergence_step": "Int64"})
