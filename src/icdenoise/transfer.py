"""Out-of-distribution evaluation of a trained linear-attention model (Fig. 4b).

A model trained on subspaces of dimension d is scored on fresh prompts whose subspaces have
another dimension d' and whose contexts have another length. The loss is reported per subspace
dimension, y = MSE · n / d' = E‖x̂ − x‖² / d', whose Bayes value σ0² σ_z² / (σ0² + σ_z²) (eq. 4
divided by d') and zero-predictor value σ0² do not depend on d'.
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from .tasks import LinearSubspace
from .training import ensemble_from_frame, predict

log = logging.getLogger(__name__)


def subspace_shift_table(
    weights: pd.DataFrame,
    model_name: str,
    block: dict,
    subspace_dims: list[int],
    context_lengths: list[int],
    n_prompts: int,
    seed: int,
) -> pd.DataFrame:
    """Columns: d_prime, L, stage (initial | final), seed, mse (per coordinate), loss_per_dim (y)."""
    ensembles = {stage: ensemble_from_frame(weights, model_name, stage) for stage in ("initial", "final")}
    rows = []
    for d_prime in subspace_dims:
        task = LinearSubspace(n=block["n"], d=d_prime, sigma0_sq=block["sigma0_sq"], sigma_z_sq=block["sigma_z_sq"])
        for context_length in context_lengths:
            prompts = task.sample(n_prompts, context_length, seed)
            for stage, (seeds, model) in ensembles.items():
                mse = np.mean((predict(model, prompts.context, prompts.query) - prompts.target) ** 2, axis=(1, 2))
                rows += [
                    {"d_prime": d_prime, "L": context_length, "stage": stage, "seed": s, "mse": m,
                     "loss_per_dim": m * block["n"] / d_prime}
                    for s, m in zip(seeds, mse)
                ]
        log.info("d' = %d scored at L = %s", d_prime, context_lengths)
    return pd.DataFrame(rows)


def subspace_shift_references(block: dict) -> dict[str, float]:
    """y of the Bayes-optimal denoiser and of the zero predictor (independent of d')."""
    sigma0_sq, sigma_z_sq = block["sigma0_sq"], block["sigma_z_sq"]
    return {"bayes": sigma0_sq * sigma_z_sq / (sigma0_sq + sigma_z_sq), "zero": sigma0_sq}
