"""Figure 3's table: one row per (case, model, seed) of a training run at the case's own L, with the
learned scales α = mean diag W_PV and β = mean diag W_KQ (Sec. 3), the final train and test MSE/n
and the case's baselines (Sec. 2.3) read from its closed-form evaluation: the Bayes posterior mean, the
plug-in, the zero predictor and, for the Gaussian mixture, the σ0 → 0 posterior mean of eq. 8 (NaN for
the other tasks). The figure draws these lines from this table."""

from __future__ import annotations

import numpy as np
import pandas as pd

from icdenoise.records.weights import diagonal_means


def baseline_mse(bayes: pd.DataFrame, case: str, estimator: str) -> float:
    """The closed form where one exists, else the Monte-Carlo estimate; NaN if not evaluated."""
    row = bayes[(bayes["case"] == case) & (bayes["estimator"] == estimator)]
    if row.empty:
        return float("nan")
    expected, estimate = row["expected"].iloc[0], row["mse"].iloc[0]
    return float(expected if np.isfinite(expected) else estimate)


def summary_table(weights: pd.DataFrame, losses: pd.DataFrame, bayes: pd.DataFrame) -> pd.DataFrame:
    """One row per (case, model, seed): α, β, α·β, final train/test MSE/n and the baselines."""
    final = diagonal_means(weights[weights["stage"] == "final"]).drop(columns=["stage", "L"], errors="ignore")
    last_step = losses.groupby(["case", "model"])["step"].transform("max")
    last = losses[losses["step"] == last_step].pivot_table(
        index=["case", "model", "seed"], columns="split", values="mse"
    )
    last = last.rename(columns={"train": "final_train_mse", "test": "final_test_mse"}).reset_index()
    table = final.merge(last, on=["case", "model", "seed"], validate="one_to_one")
    table["alpha_beta"] = table["alpha"] * table["beta"]
    for column, estimator in (("bayes_mse", "oracle"), ("plugin_mse", "plugin"), ("zero_mse", "zero"),
                              ("point_masses_mse", "oracle_point_masses")):
        table[column] = [baseline_mse(bayes, case, estimator) for case in table["case"]]
    table["test_over_bayes"] = table["final_test_mse"] / table["bayes_mse"]
    ordered = ["case", "model", "seed", "alpha", "beta", "alpha_beta", "final_train_mse", "final_test_mse",
               "bayes_mse", "plugin_mse", "zero_mse", "test_over_bayes", "point_masses_mse"]
    cases = list(dict.fromkeys(weights["case"]))  # the order the inputs came in, i.e. the config's
    order = {case: index for index, case in enumerate(cases)}
    sort_key = lambda column: column.map(order) if column.name == "case" else column  # noqa: E731
    return table[ordered].sort_values(["case", "model", "seed"], key=sort_key).reset_index(drop=True)
