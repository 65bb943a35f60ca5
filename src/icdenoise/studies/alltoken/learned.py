"""Beyond the explainer: what an L-layer two-stage attention network learns (`TwoStageAttention`,
trained by MSE on all-token prompts), against the theory's constant β and η and its L*, and its test
MSE against the two-stage estimator and Bayes as N grows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from icdenoise.maths.cases import make_case
from icdenoise.maths.estimators import closed_form_denoisers
from icdenoise.maths.scoring import squared_error_per_prompt
from icdenoise.studies.alltoken.empirical_bayes import empirical_bayes_denoisers
from icdenoise.studies.alltoken.meanfield import optimal_time


def learned_parameters(weights: pd.DataFrame, sigma_z_sq: float, theory_beta: float) -> pd.DataFrame:
    """Per seed and layer: beta (β_ℓ), eta (η_ℓ), tau (the mean-field time Σ_{k≤ℓ} η_k/β_k reached after
    the layer), beta_c (Stage 2's); and the theory's constant β, its η = βσ²/(2L) for L layers, and T*."""
    final = weights[weights["stage"] == "final"]
    wide = final.pivot_table(index=["seed", "row"], columns="matrix", values="value").reset_index()
    layers = wide.dropna(subset=["log_beta"]).rename(columns={"row": "layer"})
    table = pd.DataFrame({"seed": layers["seed"].astype(int), "layer": layers["layer"].astype(int) + 1,
                          "beta": np.exp(layers["log_beta"]), "eta": layers["eta"]}).sort_values(["seed", "layer"])
    table["tau"] = (table["eta"] / table["beta"]).groupby(table["seed"]).cumsum()
    beta_c = final[final["matrix"] == "log_beta_c"].set_index("seed")["value"]
    table["beta_c"] = np.exp(table["seed"].map(beta_c))
    depth = int(table["layer"].max())
    return table.assign(theory_beta=theory_beta, theory_eta=theory_beta * sigma_z_sq / (2 * depth), theory_beta_c=1 / sigma_z_sq,
                        t_star=optimal_time(sigma_z_sq), sigma_z_sq=sigma_z_sq).reset_index(drop=True)


def learned_mse(trained, case_block: dict, mse_block: dict, learned_block: dict) -> pd.DataFrame:
    """MSE/σ² per context at each N of `learned_block`: the trained model (per seed), the two-stage
    estimator at the Fig. 4(a) (β, η, L) and Bayes, on the same contexts. Columns N, context,
    estimator, seed (−1 for the closed forms), mse_over_sigma2."""
    case = make_case(case_block)
    sigma_z_sq = case.corruption.sigma_z_sq
    two_stage = empirical_bayes_denoisers(mse_block["beta"], mse_block["eta"], mse_block["depth"], sigma_z_sq)["two_stage"]
    denoisers = {"learned": trained, "two_stage": two_stage, "bayes": closed_form_denoisers(case)["oracle"]}
    frames = []
    for tokens, contexts in zip(learned_block["n_tokens"], learned_block["contexts"]):
        for start in range(contexts):  # one context at a time: the model holds (seeds, N, N) kernels
            prompts = case.sample(1, tokens, learned_block["seed"], start=start)
            for name, denoiser in denoisers.items():
                with torch.no_grad():
                    errors = squared_error_per_prompt(denoiser.predict(prompts), prompts.target)[:, 0] / sigma_z_sq
                seeds = denoiser.seeds if denoiser.seeds is not None else (-1,)
                frames.append(pd.DataFrame({"N": tokens, "context": start, "estimator": name, "seed": list(seeds), "mse_over_sigma2": errors}))
    return pd.concat(frames, ignore_index=True)
