"""Theorem 3.1 (eq. 13, App. D.3): on a sphere, softmax attention with the ideal weights W_PV = I and
W_KQ = I/σ_z² tends to the Bayes posterior mean f_opt (eq. 6) as L → ∞. App. E expects the error of the
finite-L sums to be O(1/√L), so the excess MSE of eq. 13 over Bayes, E‖F_L − f_opt‖²/n, falls as 1/L.

Per context length, on the same fresh prompts: the Bayes MSE, and the excess ‖F_L(x̃) − f_opt(x̃)‖²/n per
prompt (exact: f_opt is known, so no target noise enters), with its standard error. Since the context is
independent of the clean query given x̃, the excess is exactly the extra MSE of eq. 13 over Bayes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from icdenoise.maths.cases import make_case
from icdenoise.maths.estimators import closed_form_denoisers
from icdenoise.maths.fits import loglog_slope
from icdenoise.maths.scoring import squared_error_per_prompt


def convergence_table(block: dict, theorem: dict) -> pd.DataFrame:
    """Columns L, n_prompts, bayes_mse, excess (mean over prompts of ‖F_L − f_opt‖²/n), excess_sem,
    relative_excess (excess / bayes_mse) and its sem. theorem: context_lengths, n_prompts, chunk_size, seed."""
    case = make_case(block)
    denoisers = closed_form_denoisers(case)
    oracle, ideal = denoisers["oracle"], denoisers["ideal_softmax"]
    rows = []
    for length in theorem["context_lengths"]:
        excess, bayes = [], []
        for start in range(0, theorem["n_prompts"], theorem["chunk_size"]):
            prompts = case.sample(min(theorem["chunk_size"], theorem["n_prompts"] - start), length, theorem["seed"], start=start)
            optimal = oracle.predict(prompts)
            excess.append(squared_error_per_prompt(ideal.predict(prompts), optimal[0])[0])
            bayes.append(squared_error_per_prompt(optimal, prompts.target)[0])
        excess, bayes = np.concatenate(excess), np.concatenate(bayes)
        sem = excess.std(ddof=1) / np.sqrt(excess.size)
        rows.append({"L": length, "n_prompts": excess.size, "bayes_mse": bayes.mean(), "excess": excess.mean(), "excess_sem": sem,
                     "relative_excess": excess.mean() / bayes.mean(), "relative_excess_sem": sem / bayes.mean()})
    return pd.DataFrame(rows)


def rate_fit(table: pd.DataFrame, fit_from: int) -> pd.DataFrame:
    """The fitted exponent of the excess against L over L ≥ fit_from (icdenoise.maths.fits.loglog_slope),
    with its 95% interval, and the exponent App. E expects (−1)."""
    used = table[table["L"] >= fit_from]
    fit = loglog_slope(used["L"], used["excess"])
    return pd.DataFrame([{**fit, "fit_from": fit_from, "expected_slope": -1.0}])
