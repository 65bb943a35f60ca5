"""The MSE landscape over scaled-identity softmax attention weights (Appendix G, Fig. 6).

`landscape_table` scans it on the Fig. 3 data and marks the heuristic point (α = 1, β = 1/σ_z²),
the trained weights of Fig. 3 and the grid minimum; `fresh_landscape_table` scans the same on fresh prompts.

With W_PV = α I and W_KQ = β I, eq. 12 reads x̂ = α m_β with m_β = X softmax(β Xᵀ x̃), so for a
fixed β the loss is a quadratic in α:

    N n · MSE(α, β) = α² Σ‖m_β‖² − 2α Σ⟨m_β, x⟩ + Σ‖x‖².

One softmax pass per β therefore gives a whole column of α values.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import softmax

from icdenoise.maths.bayes import bayes_inverse_temperature
from icdenoise.maths.cases import make_case


def _readout_moments(context: np.ndarray, query: np.ndarray, target: np.ndarray, beta: float) -> tuple[float, float]:
    """(Σ‖m_β‖², Σ⟨m_β, x⟩) over the prompts."""
    weights = softmax(beta * np.einsum("bln,bn->bl", context, query), axis=1)
    readout = np.einsum("bl,bln->bn", weights, context)
    return float(np.sum(readout**2)), float(np.sum(readout * target))


def scaled_identity_mse(
    context: np.ndarray, query: np.ndarray, target: np.ndarray, alphas: np.ndarray, betas: np.ndarray
) -> np.ndarray:
    """MSE/n of x̂ = α X softmax(β Xᵀ x̃) for every (β, α): shape (len(betas), len(alphas)).

    context (N, L, n), query and target (N, n), all in float64 for an exact quadratic.
    """
    context, query, target = (np.asarray(a, dtype=np.float64) for a in (context, query, target))
    alphas = np.asarray(alphas, dtype=np.float64)
    count = target.size
    target_energy = float(np.sum(target**2))
    rows = []
    for beta in np.asarray(betas, dtype=np.float64):
        readout_energy, overlap = _readout_moments(context, query, target, beta)
        rows.append((alphas**2 * readout_energy - 2 * alphas * overlap + target_energy) / count)
    return np.array(rows)


def landscape_table(case: str, context, query, target, sigma_z_sq: float, trained: pd.DataFrame, fig6: dict) -> pd.DataFrame:
    """Columns case, kind (grid | heuristic | trained | minimum), seed (trained only, else −1), alpha, beta, mse.

    trained: Fig. 3 summary rows of this case and model, with columns seed, alpha, beta.
    """
    alphas = np.linspace(*fig6["alpha_range"], fig6["grid_size"])
    betas = np.linspace(*fig6["beta_range"], fig6["grid_size"])
    mse = scaled_identity_mse(context, query, target, alphas, betas)
    beta_grid, alpha_grid = np.meshgrid(betas, alphas, indexing="ij")
    frames = [pd.DataFrame({"kind": "grid", "seed": -1, "alpha": alpha_grid.ravel(), "beta": beta_grid.ravel(), "mse": mse.ravel()})]
    best = np.unravel_index(np.argmin(mse), mse.shape)
    frames.append(pd.DataFrame([{"kind": "minimum", "seed": -1, "alpha": alphas[best[1]], "beta": betas[best[0]], "mse": mse[best]}]))

    def at(alpha: float, beta: float) -> float:
        return float(scaled_identity_mse(context, query, target, [alpha], [beta])[0, 0])

    heuristic_beta = bayes_inverse_temperature(sigma_z_sq)
    frames.append(pd.DataFrame([{"kind": "heuristic", "seed": -1, "alpha": 1.0, "beta": heuristic_beta, "mse": at(1.0, heuristic_beta)}]))
    frames.append(pd.DataFrame([
        {"kind": "trained", "seed": int(row.seed), "alpha": row.alpha, "beta": row.beta, "mse": at(row.alpha, row.beta)}
        for row in trained.itertuples()
    ]))
    table = pd.concat(frames, ignore_index=True)
    table.insert(0, "case", case)
    return table


def fresh_landscape_table(case: str, block: dict, trained: pd.DataFrame, fig6: dict, n_prompts: int, seed: int,
                          chunk_size: int) -> pd.DataFrame:
    """`landscape_table` on fresh prompts instead of the dataset: prompts 0..n_prompts−1 of the case at its L, drawn
    from `seed` (the evaluation's: the prompts evaluate_bayes and evaluate_trained score), `chunk_size` at a time.
    The loss is a quadratic in α whose coefficients Σ‖m_β‖², Σ⟨m_β, x⟩ and Σ‖x‖² add over prompts, so each chunk
    adds its sums for every β of the grid, the heuristic β and each trained β. Same columns as `landscape_table`,
    with n_prompts; block: the case's config block (L included)."""
    alphas = np.linspace(*fig6["alpha_range"], fig6["grid_size"])
    betas = np.linspace(*fig6["beta_range"], fig6["grid_size"])
    heuristic_beta = bayes_inverse_temperature(block["corruption"]["sigma_z_sq"])
    scanned = np.concatenate([betas, [heuristic_beta], trained["beta"].to_numpy(dtype=np.float64)])
    sampler = make_case(block)
    readout_energy, overlap = np.zeros(scanned.size), np.zeros(scanned.size)
    target_energy, count = 0.0, 0
    for start in range(0, n_prompts, chunk_size):
        prompts = sampler.sample(min(chunk_size, n_prompts - start), block["L"], seed, start=start)
        context, query, target = (np.asarray(a, dtype=np.float64) for a in (prompts.context, prompts.query, prompts.target))
        for index, beta in enumerate(scanned):
            energy, product = _readout_moments(context, query, target, beta)
            readout_energy[index] += energy
            overlap[index] += product
        target_energy += float(np.sum(target**2))
        count += target.size

    def mse(alpha, index: int):
        return (np.asarray(alpha) ** 2 * readout_energy[index] - 2 * np.asarray(alpha) * overlap[index] + target_energy) / count

    grid = np.array([mse(alphas, index) for index in range(betas.size)])  # (len(betas), len(alphas))
    beta_grid, alpha_grid = np.meshgrid(betas, alphas, indexing="ij")
    frames = [pd.DataFrame({"kind": "grid", "seed": -1, "alpha": alpha_grid.ravel(), "beta": beta_grid.ravel(), "mse": grid.ravel()})]
    best = np.unravel_index(np.argmin(grid), grid.shape)
    frames.append(pd.DataFrame([{"kind": "minimum", "seed": -1, "alpha": alphas[best[1]], "beta": betas[best[0]], "mse": grid[best]}]))
    frames.append(pd.DataFrame([{"kind": "heuristic", "seed": -1, "alpha": 1.0, "beta": heuristic_beta,
                                 "mse": float(mse(1.0, betas.size))}]))
    frames.append(pd.DataFrame([
        {"kind": "trained", "seed": int(row.seed), "alpha": row.alpha, "beta": row.beta, "mse": float(mse(row.alpha, betas.size + 1 + position))}
        for position, row in enumerate(trained.itertuples())
    ]))
    table = pd.concat(frames, ignore_index=True)
    table.insert(0, "case", case)
    return table.assign(n_prompts=n_prompts)
