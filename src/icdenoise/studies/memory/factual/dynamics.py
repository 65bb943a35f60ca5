"""Slide 13's training dynamics: a one-layer linear-attention model with one-hot embeddings trained by gradient
descent from a small positive initialisation, through an intermediate phase that predicts p(a | r) - a
hallucination over A_r that ignores s - before it stores every fact.

The model: logits_a(x) = (1/T) Σ_{t=1..T} w_KQ(z_t) W_OV(a, z_t) over the T tokens before the end token (s, r and
the T − 2 noise tokens; T' = T; the end token, the query, contributes no value). With one-hot embeddings the
key-query score of token z against the fixed end-token query is one number w_KQ(z), and the value-output map is
the matrix W_OV (R·A answers × S + R + noise tokens). Both start at exactly α > 0 in every entry."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import torch

from icdenoise.studies.memory.embeddings import generator
from icdenoise.studies.memory.factual.task import FactualTask, factual_task

DYNAMICS_NOISE = 16  # purpose code of the fixed noise draws (facts 11)
DYNAMICS_COLUMNS = ["step", "seed", "loss", "kl_relation", "kl_fact", "accuracy"]


def token_counts(task: FactualTask, tokens: torch.Tensor) -> torch.Tensor:
    """(N, T + 1) sequences → (N, S + R + noise) float64 counts c_x(z) of each token among the first T positions."""
    counts = torch.zeros(len(tokens), task.vocabulary - 1, dtype=torch.float64)
    return counts.scatter_add_(1, tokens[:, :task.length], torch.ones(tokens[:, :task.length].shape, dtype=torch.float64))


def linear_logits(counts: torch.Tensor, w_kq: torch.Tensor, w_ov: torch.Tensor, length: int) -> torch.Tensor:
    """(N, answers): logits_a(x) = (1/T) Σ_z c_x(z) w_KQ(z) W_OV(a, z)."""
    return (counts * w_kq) @ w_ov.T / length


def gradients(counts: torch.Tensor, targets: torch.Tensor, w_kq: torch.Tensor, w_ov: torch.Tensor,
              length: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The mean cross-entropy L over the N sequences and its gradients in closed form, with G = (p̂ − e_{a*})/N:
    ∂L/∂W_OV(a, z) = (1/T) Σ_x G_{x,a} c_x(z) w_KQ(z), ∂L/∂w_KQ(z) = (1/T) Σ_x c_x(z) Σ_a G_{x,a} W_OV(a, z).
    Returns (L, ∂L/∂w_KQ, ∂L/∂W_OV)."""
    logits = linear_logits(counts, w_kq, w_ov, length)
    log_p = torch.log_softmax(logits, dim=1)
    rows = torch.arange(len(targets))
    loss = -log_p[rows, targets].mean()
    residual = log_p.exp()
    residual[rows, targets] -= 1.0
    residual /= len(targets)
    grad_ov = residual.T @ counts * w_kq / length
    grad_kq = (counts * (residual @ w_ov)).sum(dim=0) / length
    return loss, grad_kq, grad_ov


def divergences(log_p: torch.Tensor, targets: torch.Tensor, relations: torch.Tensor,
                answers_per_relation: int) -> tuple[float, float, float]:
    """For log p̂ (N, R·A) of N sequences with targets a* and relations r: the means over sequences of
    KL(p(·|r) ‖ p̂) with p(·|r) uniform on A_r (= −log A − (1/A) Σ_{a ∈ A_r} log p̂_a), of KL(δ_{a*} ‖ p̂) = −log p̂(a*),
    and the argmax accuracy."""
    rows = torch.arange(len(targets))
    in_relation = relations[:, None] * answers_per_relation + torch.arange(answers_per_relation)[None, :]
    kl_relation = -math.log(answers_per_relation) - log_p.gather(1, in_relation).mean(dim=1)
    kl_fact = -log_p[rows, targets]
    accuracy = (log_p.argmax(dim=1) == targets).to(torch.float64)
    return float(kl_relation.mean()), float(kl_fact.mean()), float(accuracy.mean())


def dynamics(block: dict, seed: int, save=None, saved: dict | None = None) -> pd.DataFrame:
    """Gradient descent with step `learning_rate` for `steps` steps (a stand-in for gradient flow) on the mean
    cross-entropy over a fixed set of `draws` noise draws per fact, from W_OV = w_KQ = α; a row every
    `record_every` steps (and at the last) of the loss, kl_relation, kl_fact (both means over facts and draws)
    and accuracy on those sequences. The facts a*(s, r) and the noise draws come from `seed`.

    For checkpoints: `save(step, state)`, if given, is called before every step with a function that returns the
    run's state there (w_KQ, W_OV and the rows so far: nothing else changes, the draws are fixed); `saved`, such a
    state, is where the descent continues."""
    task = factual_task(block["subjects"], block["relations"], block["answers"], block["noise"], block["length"], seed)
    tokens, targets = task.sample(generator(seed, DYNAMICS_NOISE), block["draws"])
    counts = token_counts(task, tokens)
    relations = task.fact_subjects_relations()[1].repeat(block["draws"])
    w_kq = torch.full((task.vocabulary - 1,), float(block["alpha"]), dtype=torch.float64)
    w_ov = torch.full((task.answer_count, task.vocabulary - 1), float(block["alpha"]), dtype=torch.float64)
    rows, first = [], 0
    if saved is not None:
        w_kq, w_ov, rows, first = saved["w_kq"].clone(), saved["w_ov"].clone(), [dict(row) for row in saved["rows"]], saved["step"]
    for step in range(first, block["steps"] + 1):
        if save is not None and step < block["steps"]:
            save(step, lambda step=step: {"w_kq": w_kq.clone(), "w_ov": w_ov.clone(), "rows": [dict(row) for row in rows],
                                          "step": step})
        loss, grad_kq, grad_ov = gradients(counts, targets, w_kq, w_ov, task.length)
        if step % block["record_every"] == 0 or step == block["steps"]:
            log_p = torch.log_softmax(linear_logits(counts, w_kq, w_ov, task.length), dim=1)
            kl_relation, kl_fact, accuracy = divergences(log_p, targets, relations, task.answers_per_relation)
            rows.append({"step": step, "seed": seed, "loss": float(loss), "kl_relation": kl_relation,
                         "kl_fact": kl_fact, "accuracy": accuracy})
        if step == block["steps"]:
            break
        w_kq -= block["learning_rate"] * grad_kq
        w_ov -= block["learning_rate"] * grad_ov
    return pd.DataFrame(rows, columns=DYNAMICS_COLUMNS).astype({"step": np.int64, "seed": np.int64})


def dynamics_curves(block: dict, checkpoint=None) -> pd.DataFrame:
    """`dynamics` of every seed in `block["seeds"]`, one after the other, in one table.

    `checkpoint` (an icdenoise.pipeline.checkpoints.Checkpoint, or None): the descents continue from their saved
    state (the curves of the seeds done, and the seed in descent with its state) and save before any step when due,
    with the numbers of descents that never stopped. Steps count on across the seeds: seed i's step t is step
    i·steps + t of seeds·steps."""
    seeds, steps = list(block["seeds"]), block["steps"]
    total = len(seeds) * steps
    done, start, inner = [], 0, None
    saved = checkpoint.resume() if checkpoint is not None else None
    if saved is not None:
        done, start, inner = list(saved["done"]), saved["seed"], saved["inner"]
    resumed_at = start * steps + (inner["step"] if inner is not None else 0)

    def save_at(index: int):
        def save(step: int, state) -> None:
            position = index * steps + step
            if resumed_at < position < total and checkpoint.due(position):
                checkpoint.save(position, total, {"done": list(done), "seed": index, "inner": state()})
        return save

    for index in range(start, len(seeds)):
        curve = dynamics(block, seeds[index], save=save_at(index) if checkpoint is not None else None,
                         saved=inner if index == start else None)
        done.append(curve)
    return pd.concat(done, ignore_index=True)
