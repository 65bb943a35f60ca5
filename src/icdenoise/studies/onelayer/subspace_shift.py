"""Figure 4(b): a linear-attention model trained on subspaces of dimension d, scored on fresh prompts
whose subspaces have another dimension d' and whose contexts have another length (Sec. 3.2).

The loss is reported per subspace dimension, y = MSE · n / d' = E‖x̂ − x‖² / d', whose Bayes value
σ0² σ_z² / (σ0² + σ_z²) (eq. 4 divided by d') and zero-predictor value σ0² do not depend on d'.
"""

from __future__ import annotations

import logging

import pandas as pd

from icdenoise.maths.bayes import linear_bayes_loss_per_dimension
from icdenoise.maths.cases import make_case
from icdenoise.maths.denoisers import TrainedEnsemble
from icdenoise.maths.models import MODELS
from icdenoise.maths.scoring import squared_error_per_seed

log = logging.getLogger(__name__)


def subspace_shift_table(
    weights: pd.DataFrame,
    architecture: str,
    block: dict,
    subspace_dims: list[int],
    context_lengths: list[int],
    n_prompts: int,
    seed: int,
) -> pd.DataFrame:
    """Columns d_prime, L, stage (initial | final), seed, mse (per coordinate, over all the fresh prompts),
    loss_per_dim (y), the reference values bayes_loss_per_dim and zero_loss_per_dim, and training_d (the
    case's own d)."""
    ensembles = {}
    for stage in ("initial", "final"):
        seeds, model = MODELS[architecture].from_frame(weights, stage)
        ensembles[stage] = TrainedEnsemble(model, tuple(seeds))
    sigma0_sq, sigma_z_sq = block["sigma0_sq"], block["corruption"]["sigma_z_sq"]
    rows = []
    for d_prime in subspace_dims:
        case = make_case({**block, "d": d_prime})
        for context_length in context_lengths:
            prompts = case.sample(n_prompts, context_length, seed)
            for stage, ensemble in ensembles.items():
                mse = squared_error_per_seed(ensemble.predict(prompts), prompts.target)
                rows += [{"d_prime": d_prime, "L": context_length, "stage": stage, "seed": s, "mse": m}
                         for s, m in zip(ensemble.seeds, mse)]
        log.info("d' = %d scored at L = %s", d_prime, context_lengths)
    table = pd.DataFrame(rows)
    table["loss_per_dim"] = table["mse"] * block["n"] / table["d_prime"]
    table["bayes_loss_per_dim"] = linear_bayes_loss_per_dimension(sigma0_sq, sigma_z_sq)
    table["zero_loss_per_dim"] = sigma0_sq
    table["training_d"] = block["d"]
    return table
