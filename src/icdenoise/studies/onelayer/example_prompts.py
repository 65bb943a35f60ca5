"""Figures 1(b) and 2 as data: one test prompt of an n = 3 case with its estimates.

For the drawn prompt: the context tokens, the query, the target, the Bayes posterior mean (eqs. 3,
6, 7) and the trained model's estimate; for subspace tasks the basis and the projection P x̃; for
the linear task the plug-in of eq. 10; for the mixture its centres. Fig. 2 also needs eq. 3's
shrinkage σ0²/(σ0²+σ_z²), stored per row.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from icdenoise.maths.bayes import linear_shrinkage
from icdenoise.maths.cases import make_case
from icdenoise.maths.estimators import closed_form_denoisers
from icdenoise.maths.models import MODELS
from icdenoise.maths.prompts import Prompts


def _rows(case: str, kind: str, points: np.ndarray) -> pd.DataFrame:
    points = np.atleast_2d(points)
    return pd.DataFrame({"case": case, "kind": kind, "index": np.arange(len(points)),
                         "x": points[:, 0], "y": points[:, 1], "z": points[:, 2]})


def drawn_seed(losses: pd.DataFrame, choice: int | str) -> int:
    """`choice`, or for "best" the seed with the lowest final test MSE of the run."""
    if choice != "best":
        return int(choice)
    test = losses[(losses["split"] == "test") & (losses["step"] == losses["step"].max())]
    return int(test.loc[test["mse"].idxmin(), "seed"])


def points_table(case: str, block: dict, prompts: Prompts, is_train: np.ndarray, weights: pd.DataFrame,
                 model: str, architecture: str, test_prompt: int, seed: int) -> pd.DataFrame:
    """Columns case, model, seed, kind (context | target | query | bayes | model | projection | plugin | basis
    | centre), index, x, y, z, shrinkage, for test prompt number `test_prompt` of the case's dataset."""
    configured = make_case(block)
    estimators = closed_form_denoisers(configured)
    index = int(np.flatnonzero(~is_train)[test_prompt])
    prompt = prompts.select(slice(index, index + 1))
    seeds, ensemble = MODELS[architecture].from_frame(weights, "final")
    estimate = ensemble.predict(prompt)[seeds.index(seed)]
    frames = [_rows(case, "context", prompt.context[0]), _rows(case, "target", prompt.target), _rows(case, "query", prompt.query),
              _rows(case, "bayes", estimators["oracle"].predict(prompt)[0]), _rows(case, "model", estimate)]
    if "basis" in prompt.task:
        basis = prompt.task["basis"][0]
        frames.append(_rows(case, "basis", basis.T))
        frames.append(_rows(case, "projection", basis @ (basis.T @ prompt.query[0])))
    if "empirical_covariance" in estimators:
        frames.append(_rows(case, "plugin", estimators["empirical_covariance"].predict(prompt)[0]))
    if "centres" in prompt.task:
        frames.append(_rows(case, "centre", prompt.task["centres"][0]))
    table = pd.concat(frames, ignore_index=True)
    table.insert(1, "model", model)
    table.insert(2, "seed", seed)
    task = configured.task
    table["shrinkage"] = linear_shrinkage(task.sigma0_sq, configured.corruption.sigma_z_sq) if task.name == "linear" else np.nan
    return table
