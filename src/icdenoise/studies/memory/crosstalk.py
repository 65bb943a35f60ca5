"""The cross-talk of a Hebbian memory (slide 9): γ_{z,y} = u_yᵀ W e_z = Σ_{z'} (u_yᵀ u_{f(z')}) (e_zᵀ e_{z'})
with W = Σ_z u_{f(z)} e_zᵀ and every embedding N(0, I/d).

The slides state E[γ_{z,y}] = 1{y = f(z)} and Var[γ_{z,y}] ≲ n_y/d + (N − n_y)/d², with n_y = |{z' : f(z') = y}|.
The exact variance (docs/memory_capacity.md, "The cross-talk variance", derives it; with E‖u‖⁴ = 1 + 2/d):
- y = f(z):  Var = (4/d + 4/d²) + (n_y − 1)(1 + 2/d)/d + (N − n_y)/d²;
- y ≠ f(z):  Var = (n_y + 1)(1 + 2/d)/d + (N − n_y − 1)/d².
The slides' expression leaves out the fluctuation of the z' = z term: ‖u_y‖²‖e_z‖² when y = f(z) (4/d, four
times the slides' 1/d when n_y = 1) and the overlap u_yᵀ u_{f(z)} with the token's own output when y ≠ f(z)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from icdenoise.studies.memory.embeddings import gaussian_embeddings, generator
from icdenoise.studies.memory.maps import outputs_for


def slides_variance(d: int, stored: int, n_y: int) -> float:
    """The slides' n_y/d + (N − n_y)/d² (slide 9)."""
    return n_y / d + (stored - n_y) / d**2


def exact_variance(d: int, stored: int, n_y: int, correct: bool) -> float:
    """Var[γ_{z,y}] for Gaussian N(0, I/d) embeddings; n_y counts the inputs mapped to y (z included when
    y = f(z))."""
    fourth = 1 + 2 / d
    if correct:
        return 4 / d + 4 / d**2 + (n_y - 1) * fourth / d + (stored - n_y) / d**2
    return (n_y + 1) * fourth / d + (stored - n_y - 1) / d**2


def simulate_gamma(d: int, stored: int, outputs: int, draws: int, rng: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """γ_{z,f(z)} and γ_{z,g(z)} for every z of `draws` independent memories, with f(z) = z mod M (balanced)
    and the wrong output g(z) = (z + 1) mod M. Returns two (draws, N) tensors."""
    targets = torch.arange(stored) % outputs
    others = (targets + 1) % outputs
    correct, wrong = [], []
    for _ in range(draws):
        inputs = gaussian_embeddings(rng, stored, d)
        table = gaussian_embeddings(rng, outputs, d)
        input_overlaps = inputs @ inputs.T
        stored_outputs = table[targets]
        correct.append(((stored_outputs @ stored_outputs.T) * input_overlaps).sum(dim=1))
        wrong.append(((table[others] @ stored_outputs.T) * input_overlaps).sum(dim=1))
    return torch.stack(correct), torch.stack(wrong)


def variance_standard_error(values: torch.Tensor) -> float:
    """The standard error of the pooled sample variance of `values` (draws, N), the draws independent memories
    and the N values of one draw correlated (they share its embeddings): each draw's mean squared deviation
    from the pooled mean, v_j, is one independent observation, and the pooled variance is
    n/(n − 1) · mean_j v_j (n = draws·N), so its standard error is n/(n − 1) · sd_j(v_j)/√draws (the delta
    method, the pooled mean's own error being of second order). NaN for a single draw."""
    draws = values.shape[0]
    if draws < 2:
        return float("nan")
    total = values.numel()
    per_draw = ((values - values.mean()) ** 2).mean(dim=1)
    return float(total / (total - 1) * per_draw.std() / np.sqrt(draws))


def variance_table(block: dict, few_outputs: int) -> pd.DataFrame:
    """One row per (map, d, N, output): the simulated mean and variance of γ pooled over draws and inputs,
    with the variance's standard error over the `draws` independent memories (`variance_standard_error`),
    the slides' variance expression and the exact one. Maps: injective (M = N), binary (M = 2) and few
    (M = few_outputs, the capacity block's); N runs over block['stored'] (multiples of every M, so the maps are balanced)."""
    rows = []
    for map_name in block["maps"]:
        for d in block["ds"]:
            for stored in block["stored"]:
                outputs = outputs_for(map_name, stored, few_outputs)
                if stored % outputs:
                    raise ValueError(f"memory.variance.stored: N = {stored} is not a multiple of M = {outputs} ({map_name} map)")
                draws = max(1, int(np.ceil(block["samples"] / stored)))
                rng = generator(block["seed"], d, stored, outputs)
                correct, wrong = simulate_gamma(d, stored, outputs, draws, rng)
                n_y = stored // outputs
                for output, values in (("correct", correct), ("wrong", wrong)):
                    values = values.double()
                    is_correct = output == "correct"
                    rows.append({"map": map_name, "d": d, "stored": stored, "outputs": outputs, "output": output,
                                 "n_y": n_y, "samples": values.numel(), "draws": draws, "mean": float(values.mean()),
                                 "variance": float(values.flatten().var()), "variance_se": variance_standard_error(values),
                                 "slides_variance": slides_variance(d, stored, n_y),
                                 "exact_variance": exact_variance(d, stored, n_y, is_correct),
                                 "expected_mean": 1.0 if is_correct else 0.0})
    table = pd.DataFrame(rows)
    table["over_slides"] = table["variance"] / table["slides_variance"]
    table["over_exact"] = table["variance"] / table["exact_variance"]
    return table
