"""The noisy query as a denoiser, x̂ = x̃. Under query corruption x̃ = x + z, z ~ N(0, σ_z² I_n), so its MSE per
coordinate is E‖x̃ − x‖²/n = σ_z² on every task."""

from __future__ import annotations

import numpy as np
import pandas as pd

from icdenoise.maths.denoisers import Denoiser
from icdenoise.maths.prompts import Prompts
from icdenoise.maths.scoring import evaluate_denoisers


class NoisyQuery(Denoiser):
    """x̂ = x̃."""

    def predict(self, prompts: Prompts) -> np.ndarray:
        return prompts.query[None]


def noisy_query_table(cases: dict[str, dict], prompts: int, seed: int, chunk_size: int) -> pd.DataFrame:
    """Per case (name → config block): MSE/n of x̂ = x̃ on `prompts` fresh prompts, σ_z² and their ratio."""
    tables = [evaluate_denoisers(name, block, block["L"], {"noisy_query": NoisyQuery()}, prompts, seed, chunk_size)
              for name, block in cases.items()]
    table = pd.concat(tables, ignore_index=True)
    table["sigma_z_sq"] = [cases[name]["corruption"]["sigma_z_sq"] for name in table["case"]]
    table["ratio"] = table["mse"] / table["sigma_z_sq"]
    return table


def leaderboard_denoisers(case: dict) -> dict[str, Denoiser]:
    """The leaderboard's row on each case."""
    return {"starter_noisy_query": NoisyQuery()}
