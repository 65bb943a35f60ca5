"""Slide 21's three gradient steps on the population loss (Bietti et al. 2023, "Birth of a transformer",
Theorem 3, informal): from W_KQ¹ = W_KQ² = W_OV² = 0 (uniform attention; W_OV¹ the frozen random remapping), one
step on W_OV², then one on W_KQ², then one on W_KQ¹, each with the other matrices held, recovers the induction
head's associative memories.

The population loss is approximated by a large fresh batch of sequences per step (`batch` sequences, in
`chunk`-sized pieces so that memory stays small), and only sequences that hold a loss position enter the
gradient: the others contribute nothing to the mean over loss positions. The loss is the cross-entropy of the
next token at a trigger's second occurrence (slide 21's "focus on predicting second output token"; `positions:
second`) or at every occurrence after the first (slide 20's loss, `output_loss_and_hits`; `positions: all`).
The two halves of each batch give separate gradients, whose difference estimates how far the batch gradient is
from the population one (`gradient_noise`).

Why the order is forced: with W_OV² = 0 the second layer adds nothing to the residual stream, so the logits do
not depend on W_KQ² and its gradient is exactly zero. The gradient on W_KQ¹ at W_OV² = 0 runs only through
u_vᵀ W_OV¹ (the first layer's write, read directly by the output embeddings), which random embeddings make
O(1/√d): zero in the theorem's infinite width, small here.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
from torch import nn

from icdenoise.studies.memory.embeddings import generator
from icdenoise.studies.memory.induction.model import AttentionOnlyTransformer, frozen_embeddings
from icdenoise.studies.memory.induction.probes import probe_targets, probes
from icdenoise.studies.memory.induction.task import TriggerBigrams, output_positions, trigger_bigrams
from icdenoise.studies.memory.induction.training import evaluate

STEPS = ("wov2", "wkq2", "wkq1")  # slide 21: "first on W_OV², then W_KQ², then W_KQ¹"
POSITIONS = ("second", "all")
TEST_SET, BATCHES = 3, 6  # purpose codes of a run's generators (1: embeddings, 2: bigrams; 3 the test set as in training)
PROBE_COLUMNS = ("probe_wov2", "probe_wkq2", "probe_wkq1", "rank_wov2", "rank_wkq2", "rank_wkq1")


def loss_positions(inputs: torch.Tensor, triggers: torch.Tensor, positions: str) -> torch.Tensor:
    """(B, T) bool: the output positions of `inputs` (`output_positions`: a trigger that already occurred), and with
    `positions` = "second" only a trigger's second occurrence."""
    if positions not in POSITIONS:
        raise ValueError(f"positions {positions!r}; allowed: {', '.join(POSITIONS)}")
    mask = output_positions(inputs, triggers)
    if positions == "second":
        earlier = torch.ones(inputs.shape[1], inputs.shape[1], dtype=torch.bool, device=inputs.device).tril(-1)
        before = ((inputs[:, :, None] == inputs[:, None, :]) & earlier).sum(dim=2)  # [b, t] = #{s < t: z_s = z_t}
        mask = mask & (before == 1)
    return mask


def summed_loss(model: AttentionOnlyTransformer, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Σ over the masked positions of `tokens[:, :-1]` of the cross-entropy of z_{t+1} (a sum, so that chunks add)."""
    logits = model.logits_at(tokens[:, :-1], mask)
    return nn.functional.cross_entropy(logits, tokens[:, 1:][mask], reduction="sum")


def sample_with_positions(task: TriggerBigrams, rng: torch.Generator, block: dict,
                          device: torch.device) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """`block["batch"]` sequences of `length + 1` tokens, drawn `chunk` at a time, as (tokens, loss mask) chunks of
    the sequences that hold at least one loss position."""
    pieces = []
    for start in range(0, block["batch"], block["chunk"]):
        tokens, _ = task.sample(rng, min(block["chunk"], block["batch"] - start), block["length"] + 1)
        tokens = tokens.to(device)
        mask = loss_positions(tokens[:, :-1], task.triggers.to(device), block["positions"])
        keep = mask.any(dim=1)
        if keep.any():
            pieces.append((tokens[keep], mask[keep]))
    return pieces


def batch_gradient(model: AttentionOnlyTransformer, name: str,
                   pieces: list[tuple[torch.Tensor, torch.Tensor]]) -> tuple[torch.Tensor, torch.Tensor, int]:
    """The gradient of the mean loss over every loss position of `pieces` with respect to the trained matrix
    `name`, accumulated chunk by chunk; also the difference of the gradients of the two halves of the chunks
    (even and odd), and the number of loss positions."""
    weight = model.trained[name]
    sums = [torch.zeros_like(weight), torch.zeros_like(weight)]
    counts = [0, 0]
    for index, (tokens, mask) in enumerate(pieces):
        (gradient,) = torch.autograd.grad(summed_loss(model, tokens, mask), [weight])
        sums[index % 2] += gradient
        counts[index % 2] += int(mask.sum())
    total = counts[0] + counts[1]
    if total == 0:
        raise ValueError("no loss position in the batch: raise batch or length")
    halves = sums[0] / max(counts[0], 1) - sums[1] / max(counts[1], 1)
    return (sums[0] + sums[1]) / total, halves, total


def start_model(block: dict) -> AttentionOnlyTransformer:
    """The 2-layer model of the block's embeddings with W_KQ¹ = W_KQ² = W_OV² = 0."""
    model = AttentionOnlyTransformer(frozen_embeddings(block), 2, generator(0))
    with torch.no_grad():
        for weight in model.trained.values():
            weight.zero_()
    return model


def stages(block: dict, seed: int):
    """Slide 21's three steps from zero: yields (stage, trained matrix, model, loss positions behind the step,
    relative gradient noise) at init (stage 0, "init", NaN, NaN) and after each step on `block["order"]`'s matrices
    (default W_OV², W_KQ², W_KQ¹), each W ← W − η ∇_W L with η = `block["step_sizes"][name]` and ∇_W L from a
    fresh batch of `batch` sequences drawn from `seed`. The same model object is yielded, updated in place."""
    device = torch.device(block.get("device", "cpu"))
    order = tuple(block.get("order", STEPS))
    if sorted(order) != sorted(STEPS):
        raise ValueError(f"order {order} must list {', '.join(STEPS)} once each")
    task = trigger_bigrams(block)
    model = start_model(block).to(device)
    yield 0, "init", model, np.nan, np.nan
    for stage, name in enumerate(order, start=1):
        pieces = sample_with_positions(task, generator(seed, BATCHES, stage), block, device)
        gradient, halves, count = batch_gradient(model, name, pieces)
        with torch.no_grad():
            model.trained[name].sub_(block["step_sizes"][name] * gradient)
        yield stage, name, model, float(count), float(halves.norm() / (2 * gradient.norm()))


def population_steps(block: dict, seed: int) -> pd.DataFrame:
    """One row per stage of `stages`: stage, trained, seed, loss and accuracy (`evaluate` on `test_sequences`
    sequences of the block's seed, over every output position), the probes (`probes`), and the loss positions
    behind the step (`positions_used`) with the batch gradient's estimated relative distance from the population
    one (`gradient_noise`: half the difference of its two halves' gradients over its norm)."""
    device = torch.device(block.get("device", "cpu"))
    task = trigger_bigrams(block)
    targets = probe_targets(frozen_embeddings(block).to(device), task)
    triggers = task.triggers.to(device)
    test_tokens, _ = task.sample(generator(block["seed"], TEST_SET), block["test_sequences"], block["length"] + 1)
    test_tokens = test_tokens.to(device)
    test_tokens = test_tokens[output_positions(test_tokens[:, :-1], triggers).any(dim=1)]  # no chunk without outputs
    rows = []
    for stage, trained, model, used, noise in stages(block, seed):
        loss, accuracy = evaluate(model, test_tokens, triggers)
        values = probes(model, targets)
        rows.append({"stage": stage, "trained": trained, "seed": seed, "loss": loss, "accuracy": accuracy,
                     **{column: values[column] for column in PROBE_COLUMNS},
                     "positions_used": used, "gradient_noise": noise})
    return pd.DataFrame(rows)


def steps_in_order(table: pd.DataFrame, threshold: float) -> pd.DataFrame:
    """Per seed: the first stage at which each probe's rank recall reaches `threshold` (NaN if never), and whether
    every probe is reached exactly at the stage that trains its matrix (W_OV² at 1, W_KQ² at 2, W_KQ¹ at 3 in
    slide 21's order; read from the `trained` column) and not before."""
    rows = []
    for seed, run in table.sort_values("stage").groupby("seed", sort=True):
        own = dict(zip(run["trained"], run["stage"]))
        row = {"seed": seed}
        matches = []
        for name in STEPS:
            reached = run["stage"][run[f"rank_{name}"].to_numpy() >= threshold]
            row[f"reached_{name}"] = float(reached.iloc[0]) if len(reached) else np.nan
            matches.append(name in own and row[f"reached_{name}"] == own[name])
        row["in_order"] = bool(all(matches))
        rows.append({**row, "rank_threshold": threshold})
    return pd.DataFrame(rows, columns=["seed", *(f"reached_{name}" for name in STEPS), "in_order", "rank_threshold"])
