"""Figure 5 as data: the energy of eq. 16 for a circle in the plane, descent paths of eq. 17 from a
few queries (step 1 with γ = α is the attention output), and the MSE after k steps over many fresh
prompts, scored against the Bayes posterior mean (eq. 6). β = 1/σ_z², the heuristic point of eq. 13.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from icdenoise.maths.bayes import bayes_inverse_temperature
from icdenoise.maths.cases import make_case
from icdenoise.maths.denoisers import Denoiser
from icdenoise.maths.estimators import closed_form_denoisers
from icdenoise.maths.prompts import Prompts
from icdenoise.maths.scoring import score
from icdenoise.studies.onelayer.energy import descent_path, energy


@dataclass
class DescentDenoiser(Denoiser):
    """k steps of eq. 17 with step size γ = α from s(0) = x̃, with the prompt's context as memories."""

    alpha: float
    beta: float
    steps: int

    def predict(self, prompts: Prompts) -> np.ndarray:
        return descent_path(prompts.context, prompts.query, self.alpha, self.beta, self.alpha, self.steps)[-1][None]


def landscape_tables(block: dict, fig5: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(grid: x, y, energy, alpha, beta, sigma_z_sq; points: kind (context | target | query | path),
    trajectory, step, x, y).

    One context of L tokens and `trajectories` noisy queries of the same circle, from one seed.
    Paths run `iterations` steps of eq. 17 with γ = α from each query; step 1 is the attention output.
    """
    case = make_case(block)
    sigma_z_sq = case.corruption.sigma_z_sq
    alpha, beta = fig5["alpha"], bayes_inverse_temperature(sigma_z_sq)
    rng = np.random.default_rng(fig5["seed"])
    tokens, _ = case.task.sample_tokens(rng, block["L"] + fig5["trajectories"])
    context, targets = tokens[: block["L"]], tokens[block["L"] :]
    queries = targets + np.sqrt(sigma_z_sq) * rng.standard_normal(targets.shape)

    axis = np.linspace(-fig5["extent"], fig5["extent"], fig5["grid_size"])
    xs, ys = np.meshgrid(axis, axis, indexing="xy")
    states = np.stack([xs.ravel(), ys.ravel()], axis=1)
    grid = pd.DataFrame({"x": states[:, 0], "y": states[:, 1], "energy": energy(context, states, alpha, beta),
                         "alpha": alpha, "beta": beta, "sigma_z_sq": sigma_z_sq})

    path = descent_path(context, queries, alpha, beta, alpha, fig5["iterations"])  # (steps + 1, T, 2)
    frames = [
        pd.DataFrame({"kind": "context", "trajectory": -1, "step": -1, "x": context[:, 0], "y": context[:, 1]}),
        pd.DataFrame({"kind": "target", "trajectory": np.arange(len(targets)), "step": -1, "x": targets[:, 0], "y": targets[:, 1]}),
        pd.DataFrame({"kind": "query", "trajectory": np.arange(len(queries)), "step": 0, "x": queries[:, 0], "y": queries[:, 1]}),
    ]
    steps, trajectories = np.meshgrid(np.arange(path.shape[0]), np.arange(path.shape[1]), indexing="ij")
    frames.append(pd.DataFrame({
        "kind": "path", "trajectory": trajectories.ravel(), "step": steps.ravel(),
        "x": path[:, :, 0].ravel(), "y": path[:, :, 1].ravel(),
    }))
    return grid, pd.concat(frames, ignore_index=True)


def step_count_table(block: dict, fig5: dict) -> pd.DataFrame:
    """MSE/n after k steps of eq. 17 (γ = α, from s(0) = x̃) over `n_queries` fresh prompts, each with
    its own context, for every k in `step_counts`; plus the Bayes posterior mean (eq. 6) on the same
    prompts. Columns: estimator (descent | bayes), steps (−1 for bayes), mse, sem, n_queries."""
    case = make_case(block)
    alpha, beta = fig5["alpha"], bayes_inverse_temperature(case.corruption.sigma_z_sq)
    denoisers = {steps: DescentDenoiser(alpha, beta, steps) for steps in fig5["step_counts"]}
    denoisers["bayes"] = closed_form_denoisers(case)["oracle"]
    scored = score(denoisers, case.sample(fig5["n_queries"], block["L"], fig5["query_seed"]))
    is_bayes = scored["estimator"] == "bayes"
    return pd.DataFrame({
        "estimator": np.where(is_bayes, "bayes", "descent"),
        "steps": np.where(is_bayes, -1, scored["estimator"].where(~is_bayes, -1)).astype(int),
        "mse": scored["mse"], "sem": scored["sem"], "n_queries": scored["n_prompts"],
    })
