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

A point's model whose training diverged (a sweep point's training writes its divergence record instead of
failing: icdenoise.maths.training.Divergence) keeps its rows, one per seed, with status `diverged` (that
seed's loss was not finite or over 100 times the zero predictor's) or `stopped` (trained beside seeds that
were), divergence_step (the step of the first diverged record) and divergence_loss (that seed's larger loss,
train or test, at that step; NaN if either is NaN); their mse, sem, ratio_to_bayes and learned scales are
NaN, as there is no trained model to score. Every other row has status `trained`, and no divergence_step
or divergence_loss.
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


DIVERGED_COLUMNS = ["case", "model", "seed", "status", "divergence_step", "divergence_loss"]


def learned_scales(weights: pd.DataFrame, points: list[dict]) -> pd.DataFrame:
    """case, model, seed, alpha, beta: the points' final weights' diagonal means (NaN for a model without them)."""
    if weights.empty:  # every training of the sweep diverged
        return pd.DataFrame({"case": pd.Series(dtype=object), "model": pd.Series(dtype=object), "seed": pd.Series(dtype="int64"),
                             "alpha": pd.Series(dtype=float), "beta": pd.Series(dtype=float)})
    weights = pd.concat([point_rows(weights, point, "model") for point in points], ignore_index=True)
    scales = diagonal_means(weights[weights["stage"] == "final"]).drop(columns=["stage", "L"], errors="ignore")
    for column in ("alpha", "beta"):
        if column not in scales:
            scales[column] = np.nan
    return scales[["case", "model", "seed", "alpha", "beta"]]


def diverged_rows(divergences: pd.DataFrame | None, points: list[dict]) -> pd.DataFrame:
    """DIVERGED_COLUMNS of the points' diverged trainings, one row per seed (none where nothing diverged)."""
    if divergences is None or divergences.empty:
        return pd.DataFrame(columns=DIVERGED_COLUMNS)
    rows = pd.concat([point_rows(divergences, point, "model") for point in points], ignore_index=True)
    loss = rows[["train_loss", "test_loss"]].max(axis=1, skipna=False)
    return rows.assign(divergence_step=rows["step"], divergence_loss=loss)[DIVERGED_COLUMNS]


def sweep_table(sweep: str, points: list[dict], bayes: pd.DataFrame, scores: pd.DataFrame, weights: pd.DataFrame,
                divergences: pd.DataFrame | None = None) -> pd.DataFrame:
    """The tidy table of `sweep`.

    points: one dict per derived case, with keys case, source (the case whose tables it reads: its own, or
    the configured case it shares its jobs with), bayes_source (the case whose closed forms it reads, its base
    case where their case blocks are the same; `source` where not given), base, values (sweep key → value), block (the case's config
    block) and models (model → block); bayes, scores, weights: the rows of the sources' evaluate_bayes,
    evaluate_trained and train_ensemble tables, each source's once (several points may read one source);
    divergences: the divergence records train_ensemble wrote in place of weights tables (icdenoise.records.
    trained.read_trainings), stacked. A point's rows are its source's, of its models, under the point's name."""
    keys = list(points[0]["values"])
    bayes_source = {point["case"]: point.get("bayes_source", point["source"]) for point in points}
    oracle = bayes[bayes["estimator"] == BAYES_ESTIMATOR].set_index("case")["mse"]
    scores = pd.concat([point_rows(scores, point, "estimator") for point in points], ignore_index=True)
    trained = scores.rename(columns={"estimator": "model"})[["case", "model", "seed", "mse", "sem"]].assign(status="trained")
    diverged = diverged_rows(divergences, points)
    table = pd.concat([frame for frame in (trained, diverged) if len(frame)] or [trained], ignore_index=True)
    table = table.reindex(columns=[*trained.columns, "divergence_step", "divergence_loss"])
    table = table.astype({"mse": float, "sem": float, "divergence_step": "Int64", "divergence_loss": float})
    table = table.merge(learned_scales(weights, points), on=["case", "model", "seed"], how="left", validate="one_to_one")
    by_case = {point["case"]: point for point in points}
    for key in keys:
        table[key] = [by_case[case]["values"][key] for case in table["case"]]
    table["base"] = [by_case[case]["base"] for case in table["case"]]
    table["bayes_mse"] = table["case"].map(bayes_source).map(oracle)
    table["ratio_to_bayes"] = table["mse"] / table["bayes_mse"]
    table["gamma"] = table["alpha"] * table["beta"]
    flipped = table["alpha"] < 0
    table.loc[flipped, ["alpha", "beta"]] = -table.loc[flipped, ["alpha", "beta"]]
    predicted = [theory(by_case[case]["block"], by_case[case]["models"][model]) for case, model in zip(table["case"], table["model"])]
    table["beta_theory"] = [beta for beta, _ in predicted]
    table["gamma_theory"] = [gamma for _, gamma in predicted]
    table.insert(0, "sweep", sweep)
    order = {point["case"]: index for index, point in enumerate(points)}
    columns = ["sweep", "base", "case", *keys, "model", "seed", "status", "mse", "sem", "bayes_mse", "ratio_to_bayes", "alpha",
               "beta", "gamma", "beta_theory", "gamma_theory", "divergence_step", "divergence_loss"]
    table = table[columns].sort_values(["case", "model", "seed"], key=lambda column: column.map(order) if column.name == "case" else column)
    return table.reset_index(drop=True)
