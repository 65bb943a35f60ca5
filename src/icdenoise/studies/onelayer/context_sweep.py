"""Figure 4(a): linear attention on the linear case as the training context length L grows.

`oracle_on_test_prompts` scores the Bayes posterior mean on each dataset's own test prompts, with the
same one-pass reduction as the recorded test loss, so that `sweep_table`'s excess over Bayes is a
paired difference with the test set's sampling noise cancelled. `sweep_table` gives one row per (L, seed): γ = α·β against γ* = 1/(σ0²+σ_z²), the best
and final test MSE/n. `power_law_fit` fits log(excess) = c + slope · log L (Appendix E expects the
loss to fall as a power of L).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from icdenoise.maths.bayes import optimal_linear_scale
from icdenoise.maths.cases import make_case
from icdenoise.maths.estimators import closed_form_denoisers
from icdenoise.maths.scoring import squared_error_per_seed
from icdenoise.records.weights import diagonal_means


def oracle_on_test_prompts(block: dict, datasets) -> pd.DataFrame:
    """Columns L, oracle_test_mse: the oracle's MSE/n on the test prompts of each (prompts, is_train) pair."""
    oracle = closed_form_denoisers(make_case(block))["oracle"]
    rows = []
    for prompts, is_train in datasets:
        test = prompts.select(~is_train)
        rows.append({"L": prompts.context.shape[1], "oracle_test_mse": float(squared_error_per_seed(oracle.predict(test), test.target)[0])})
    return pd.DataFrame(rows)


def sweep_table(weights: pd.DataFrame, losses: pd.DataFrame, test_oracle: pd.DataFrame, block: dict) -> pd.DataFrame:
    """weights/losses: the training artifacts of every L; test_oracle: columns L, oracle_test_mse;
    block: the case (its σ0² and σ_z² give γ*)."""
    final = diagonal_means(weights[weights["stage"] == "final"])[["L", "seed", "alpha", "beta"]]
    test = losses[losses["split"] == "test"]
    best = test.groupby(["L", "seed"])["mse"].min().rename("best_test_mse")
    final_test = test[test["step"] == test.groupby("L")["step"].transform("max")].set_index(["L", "seed"])["mse"]
    table = final.merge(best.reset_index(), on=["L", "seed"]).merge(
        final_test.rename("final_test_mse").reset_index(), on=["L", "seed"]
    )
    table["gamma"] = table["alpha"] * table["beta"]
    table["gamma_star"] = optimal_linear_scale(block["sigma0_sq"], block["corruption"]["sigma_z_sq"])
    table = table.merge(test_oracle, on="L", validate="many_to_one")
    table["excess_mse"] = table["best_test_mse"] - table["oracle_test_mse"]
    return table.sort_values(["L", "seed"]).reset_index(drop=True)


def power_law_fit(table: pd.DataFrame) -> pd.DataFrame:
    """Least squares on log(mean excess over seeds) against log L, over the L with positive excess."""
    excess = table.groupby("L")["excess_mse"].mean()
    used = excess[excess > 0]
    if len(used) < 2:
        raise ValueError(f"the power-law fit needs at least 2 context lengths with positive excess; got {used.to_dict()}")
    slope, intercept = np.polyfit(np.log(used.index.to_numpy(float)), np.log(used.to_numpy()), 1)
    residual = np.log(used.to_numpy()) - (intercept + slope * np.log(used.index.to_numpy(float)))
    total = np.log(used.to_numpy()) - np.log(used.to_numpy()).mean()
    return pd.DataFrame([{
        "slope": slope, "intercept": intercept, "r_squared": 1 - residual @ residual / (total @ total),
        "n_lengths_used": len(used), "n_lengths": len(excess),
    }])
