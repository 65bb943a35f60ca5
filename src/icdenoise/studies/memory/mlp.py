"""The trained non-linear MLP memory and its capacity (Bietti 2025 slides, slide 9/25, "Capacity ≈ number of
parameters", Non-linear MLP): f̂(z) = argmax_y u_yᵀ W₁ σ(W₂ᵀ e_z) with W₁, W₂ ∈ R^{d×m} and σ = ReLU, which
"can store N ≈ md associations for any width m".

N input tokens have random embeddings e_z, a random map f: [N] → [M] names each token's output, and the M
output embeddings u_y are random and frozen (slide 8: all N(0, 1/d)). W₁ and W₂ are trained together with
Adam, full batch on the N pairs, on the cross-entropy of the logits u_yᵀ W₁ σ(W₂ᵀ e_z), for a fixed number
of steps. The capacity is the largest N whose trained memory recalls at least a fraction `threshold` of its
N pairs by argmax. The tokens, outputs and map of one (seed, d) are drawn once, `max_pairs` long, and every
N and every width m uses their first N entries; the initial weights depend on (seed, d, m) only. So the
accuracy is close to monotone in N and the widths are compared on the same pairs.
"""

from __future__ import annotations

import pandas as pd
import torch
import torch.nn.functional as F

from icdenoise.maths.adam import Adam
from icdenoise.studies.memory.bisection import largest_n_above
from icdenoise.studies.memory.divergence import check_losses
from icdenoise.studies.memory.embeddings import gaussian_embeddings, generator

INPUT_EMBEDDINGS, OUTPUT_EMBEDDINGS, TARGET_MAP, INITIAL_WEIGHTS = 1, 2, 3, 4
TABLE_COLUMNS = ["memory", "map", "d", "m", "seed", "params_md", "capacity", "evaluations", "steps"]


def memory_logits(inputs: torch.Tensor, outputs: torch.Tensor, w1: torch.Tensor, w2: torch.Tensor) -> torch.Tensor:
    """Slide 9's MLP memory: the (N, M) logits u_yᵀ W₁ σ(W₂ᵀ e_z) of every input row e_z of `inputs` (N, d) and
    every output row u_y of `outputs` (M, d), with W₁, W₂ of shape (d, m) and σ = ReLU. Computed as
    σ(E W₂) (U W₁)ᵀ, which never forms the (N, d) hidden outputs W₁ σ(·)."""
    return torch.relu(inputs @ w2) @ (outputs @ w1).T


def recall_accuracy(logits: torch.Tensor, targets: torch.Tensor) -> float:
    """The fraction of rows whose largest logit is at the row's target output."""
    return float((logits.argmax(dim=1) == targets).to(torch.float32).mean())


def initial_weights(rng: torch.Generator, d: int, width: int) -> tuple[torch.Tensor, torch.Tensor]:
    """W₁, W₂ ∈ R^{d×m} in float32: W₂ with N(0, 1) entries, so that each pre-activation w₂ᵀe_z of a unit-norm
    embedding is about N(0, 1); W₁ with N(0, 1/m) entries, the fan-in scaling of the m hidden units."""
    w1 = torch.randn(d, width, generator=rng, dtype=torch.float32) / width**0.5
    w2 = torch.randn(d, width, generator=rng, dtype=torch.float32)
    return w1, w2


def train_memory(inputs: torch.Tensor, targets: torch.Tensor, outputs: torch.Tensor, w1: torch.Tensor,
                 w2: torch.Tensor, steps: int, learning_rate: float) -> tuple[torch.Tensor, torch.Tensor]:
    """W₁ and W₂ after `steps` full-batch Adam steps on the mean cross-entropy of the memory's logits against
    `targets`, starting from copies of `w1`, `w2` (which are left unchanged); U stays frozen. A loss that has
    diverged (`divergence.check_losses`) raises `TrainingDiverged` at its step."""
    w1, w2 = w1.clone().requires_grad_(True), w2.clone().requires_grad_(True)
    optimiser = Adam([w1, w2], lr=learning_rate)
    run = f"MLP memory, {len(targets)} pairs, d = {w1.shape[0]}, width {w1.shape[1]}"
    for step in range(steps):
        optimiser.zero_grad()
        loss = F.cross_entropy(memory_logits(inputs, outputs, w1, w2), targets)
        check_losses([loss.detach()], len(outputs), run, first_step=step)
        loss.backward()
        optimiser.step()
    return w1.detach(), w2.detach()


def draw_pairs(seed: int, d: int, pairs: int, output_count: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The (seed, d) draw shared by every N and every width: `pairs` input embeddings (pairs, d), `output_count`
    output embeddings (M, d), both N(0, 1/d), and the map f as `pairs` targets uniform on [M]."""
    inputs = gaussian_embeddings(generator(seed, d, INPUT_EMBEDDINGS), pairs, d)
    outputs = gaussian_embeddings(generator(seed, d, OUTPUT_EMBEDDINGS), output_count, d)
    targets = torch.randint(output_count, (pairs,), generator=generator(seed, d, TARGET_MAP))
    return inputs, outputs, targets


def trained_accuracy(inputs: torch.Tensor, targets: torch.Tensor, outputs: torch.Tensor, w1: torch.Tensor,
                     w2: torch.Tensor, steps: int, learning_rate: float) -> float:
    """The fraction of the stored pairs that the memory trained on them recalls."""
    trained_w1, trained_w2 = train_memory(inputs, targets, outputs, w1, w2, steps, learning_rate)
    with torch.no_grad():
        return recall_accuracy(memory_logits(inputs, outputs, trained_w1, trained_w2), targets)


def capacity(block: dict, d: int, width: int, seed: int, steps: int | None = None, trained=None) -> tuple[int, int]:
    """The capacity of the width-m memory in dimension d on draw `seed` and the number of trainings its bisection
    took. The search starts at N = m·d, slide 9's prediction; `steps` overrides the block's budget. `trained(pairs,
    train)`, if given, gives each training's accuracy at N = pairs, `train()` computing it: how `capacity_table`
    remembers the trainings done (a training's accuracy is a function of d, m, the seed and N alone)."""
    steps = block["steps"] if steps is None else steps
    inputs, outputs, targets = draw_pairs(seed, d, block["max_pairs"], block["outputs"])
    w1, w2 = initial_weights(generator(seed, d, width, INITIAL_WEIGHTS), d, width)

    def accuracy_at(pairs: int) -> float:
        def train() -> float:
            return trained_accuracy(inputs[:pairs], targets[:pairs], outputs, w1, w2, steps, block["learning_rate"])
        return train() if trained is None else trained(pairs, train)

    start = min(width * d, block["max_pairs"])
    try:
        found, evaluations = largest_n_above(accuracy_at, block["threshold"], start, block["max_pairs"],
                                             block["precision"])
    except ValueError as error:
        raise ValueError(f"d = {d}, m = {width}, seed = {seed}: {error} (max_pairs = {block['max_pairs']})") from error
    return found, len(evaluations)


def capacity_table(block: dict, d: int, checkpoint=None) -> pd.DataFrame:
    """One row per (d, m, seed) for every width m in `block["widths"]` and seed in `block["seeds"]`: the parameter count m·d of W₂ (and of W₁), the capacity, the number of
    trainings its bisection took and the step budget of each training.

    `checkpoint` (an icdenoise.pipeline.checkpoints.Checkpoint, or None): the table continues from the accuracies of
    the trainings done, which its bisections then read instead of training again, and saves before a training when
    due, with the numbers of a table that never stopped. Its steps count the trainings done, whose total is not known
    ahead; a training's own steps are not save points (each is one full-batch Adam run of `steps` steps)."""
    accuracies: dict[tuple[int, int, int], float] = {}
    saved = checkpoint.resume() if checkpoint is not None else None
    if saved is not None:
        accuracies = dict(saved["accuracies"])
    resumed_at = len(accuracies)

    def remembered(width: int, seed: int):
        def trained(pairs: int, train) -> float:
            key = (width, seed, pairs)
            if key not in accuracies:
                done = len(accuracies)
                if checkpoint is not None and done > resumed_at and checkpoint.due(done):
                    checkpoint.save(done, None, {"accuracies": dict(accuracies)})
                accuracies[key] = train()
            return accuracies[key]
        return trained

    rows = []
    for width in block["widths"]:
        for seed in block["seeds"]:
            found, trainings = capacity(block, d, width, seed, trained=remembered(width, seed))
            rows.append({"memory": "mlp", "map": f"M = {block['outputs']}", "d": d, "m": width, "seed": seed, "params_md": width * d, "capacity": found,
                         "evaluations": trainings, "steps": block["steps"]})
    return pd.DataFrame(rows, columns=TABLE_COLUMNS)
