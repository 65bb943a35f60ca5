"""A sweep's tidy table: one row per (point, base case, model, seed), from the shared stages' tables of
its derived cases (icdenoise.pipeline.sweeps), or of the configured case a point shares its jobs with,
relabelled with the point's name.

Columns: sweep, base (the configured case), case (the derived case), one column per sweep key (named by
the key), model, seed, mse (MSE/n on the evaluation's fresh prompts, Sec. 2.3), sem, bayes_mse (the
Bayes posterior mean on the same prompts), ratio_to_bayes, the learned scales alpha, beta and
gamma = α·β (Sec. 3; NaN for models without W_PV and W_KQ), oriented so that α ≥ 0: (α, β) and (−α, −β)
are the same solution of linear attention, and of softmax attention on a task symmetric under x → −x
(Fig. 3's "up to sign"), and seeds that land on either would otherwise average to zero; and the theory's values where it predicts
them: beta_theory = 1/σ_z², the inverse temperature at which eq. 13's softmax attention becomes the
posterior mean as L → ∞ (Theorem 3.1), for the softmax model; gamma_theory = γ* = 1/(σ0² + σ_z²), the
optimal α·β of linear attention (eq. 10, eq. A.12), for the linear model on the (untransformed) linear
task. Each comes from its one formula in icdenoise.maths.bayes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from icdenoise.maths.bayes import bayes_inverse_temperature, optimal_linear_scale
from icdenoise.records.leaderboard import BAYES_ESTIMATOR
from icdenoise.records.weights import diagonal_means


def theory(case: dict, model: dict) -> tuple[float, float]:
    """(β, γ) the theory predicts for a model with block `model` on a case with block `case`; NaN where it
    predicts none."""
    corruption = case["corruption"]
    query = corruption["kind"] == "query"
    beta = bayes_inverse_temperature(corruption["sigma_z_sq"]) if query and model["architecture"] == "softmax" else np.nan
    linear = query and case["task"] == "linear" and model["architecture"] == "linear" and "transform" not in case
    gamma = optimal_linear_scale(case["sigma0_sq"], corruption["sigma_z_sq"]) if linear else np.nan
    return beta, gamma


def point_rows(frame: pd.DataFrame, point: dict, model_column: str) -> pd.DataFrame:
    """The rows of `frame` a point reads: its source case's, of the point's models (`model_column` names
    them), with the point's name as their case."""
    rows = frame[(frame["case"] == point["source"]) & frame[model_column].isin(list(point["models"]))]
    return rows.assign(case=point["case"])


def sweep_table(sweep: str, points: list[dict], bayes: pd.DataFrame, scores: pd.DataFrame, weights: pd.DataFrame) -> pd.DataFrame:
    """The tidy table of `sweep`.

    points: one dict per derived case, with keys case, source (the case whose tables it reads: its own, or
    the configured case it shares its jobs with), base, values (sweep key → value), block (the case's config
    block) and models (model → block); bayes, scores, weights: the rows of the sources' evaluate_bayes,
    evaluate_trained and train_ensemble tables, each source's once (several points may read one source).
    A point's rows are its source's, of its models, under the point's name."""
    keys = list(points[0]["values"])
    source = {point["case"]: point["source"] for point in points}
    oracle = bayes[bayes["estimator"] == BAYES_ESTIMATOR].set_index("case")["mse"]
    weights = pd.concat([point_rows(weights, point, "model") for point in points], ignore_index=True)
    scales = diagonal_means(weights[weights["stage"] == "final"]).drop(columns=["stage", "L"], errors="ignore")
    for column in ("alpha", "beta"):
        if column not in scales:
            scales[column] = np.nan
    scores = pd.concat([point_rows(scores, point, "estimator") for point in points], ignore_index=True)
    trained = scores.rename(columns={"estimator": "model"})[["case", "model", "seed", "mse", "sem"]]
    table = trained.merge(scales[["case", "model", "seed", "alpha", "beta"]], on=["case", "model", "seed"], how="left",
                          validate="one_to_one")
    by_case = {point["case"]: point for point in points}
    for key in keys:
        table[key] = [by_case[case]["values"][key] for case in table["case"]]
    table["base"] = [by_case[case]["base"] for case in table["case"]]
    table["bayes_mse"] = table["case"].map(source).map(oracle)
    table["ratio_to_bayes"] = table["mse"] / table["bayes_mse"]
    table["gamma"] = table["alpha"] * table["beta"]
    flipped = table["alpha"] < 0
    table.loc[flipped, ["alpha", "beta"]] = -table.loc[flipped, ["alpha", "beta"]]
    predicted = [theory(by_case[case]["block"], by_case[case]["models"][model]) for case, model in zip(table["case"], table["model"])]
    table["beta_theory"] = [beta for beta, _ in predicted]
    table["gamma_theory"] = [gamma for _, gamma in predicted]
    table.insert(0, "sweep", sweep)
    order = {point["case"]: index for index, point in enumerate(points)}
    columns = ["sweep", "base", "case", *keys, "model", "seed", "mse", "sem", "bayes_mse", "ratio_to_bayes", "alpha", "beta",
               "gamma", "beta_theory", "gamma_theory"]
    table = table[columns].sort_values(["case", "model", "seed"], key=lambda column: column.map(order) if column.name == "case" else column)
    return table.reset_index(drop=True)
