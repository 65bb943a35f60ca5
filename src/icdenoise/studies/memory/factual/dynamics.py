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


def dynamics(block: dict, seed: int) -> pd.DataFrame:
    """Gradient descent with step `learning_rate` for `steps` steps (a stand-in for gradient flow) on the mean
    cross-entropy over a fixed set of `draws` noise draws per fact, from W_OV = w_KQ = α; a row every
    `record_every` steps (and at the last) of the loss, kl_relation, kl_fact (both means over facts and draws)
    and accuracy on those sequences. The facts a*(s, r) and the noise draws come from `seed`."""
    task = factual_task(block["subjects"], block["relations"], block["answers"], block["noise"], block["length"], seed)
    tokens, targets = task.sample(generator(seed, DYNAMICS_NOISE), block["draws"])
    counts = token_counts(task, tokens)
    relations = task.fact_subjects_relations()[1].repeat(block["draws"])
    w_kq = torch.full((task.vocabulary - 1,), float(block["alpha"]), dtype=torch.float64)
    w_ov = torch.full((task.answer_count, task.vocabulary - 1), float(block["alpha"]), dtype=torch.float64)
    rows = []
    for step in range(block["steps"] + 1):
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
