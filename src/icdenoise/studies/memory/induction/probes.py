"""Slide 20's memory-recall probes of the trained matrices against their ideal associative memories, and the
step and order in which they are learned."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from icdenoise.studies.memory.induction.model import AttentionOnlyTransformer, FrozenEmbeddings
from icdenoise.studies.memory.induction.task import TriggerBigrams

PROBED = {  # probe column → (the matrix it reads, a label for figures and order strings)
    "probe_wov2": ("wov2", "W_OV²"),
    "probe_wkq2": ("wkq2", "W_KQ²"),
    "probe_wkq1": ("wkq1", "W_KQ¹"),
    "probe_wov1": ("wov1", "W_OV¹"),
}
SLIDES_ORDER = ("probe_wov2", "probe_wkq2", "probe_wkq1")  # slide 20: "W_OV² first, W_KQ² next, W_KQ¹ last"


def recall(weight: torch.Tensor, inputs: torch.Tensor, outputs: torch.Tensor, answers: torch.Tensor) -> float:
    """Slide 20's memory-recall probe R(Ŵ, W*) = (1/M) Σ_i 1{a_i = argmax_j o_jᵀ Ŵ x_i} of the target memory
    W* = Σ_i o_{a_i} x_iᵀ: inputs x_i (M, d), candidate outputs o_j (M', d), the right answer a_i (M,) for each
    input. The slides' case is M' = M, a_i = i."""
    return float(recall_tensor(weight, inputs, outputs, answers))


def recall_tensor(weight: torch.Tensor, inputs: torch.Tensor, outputs: torch.Tensor, answers: torch.Tensor) -> torch.Tensor:
    """`recall` as a 0-d float32 tensor on the weight's device (no read-back to the host)."""
    scores = inputs @ weight.T @ outputs.T  # [i, j] = o_jᵀ Ŵ x_i
    return (scores.argmax(dim=1) == answers).to(torch.float32).mean()


def rank_recall(weight: torch.Tensor, inputs: torch.Tensor, outputs: torch.Tensor, answers: torch.Tensor) -> float:
    """A probe fine enough to order the probes: per input, the fraction of the wrong candidates that the right
    answer outscores, averaged over inputs - 1 for the target memory, about 1/2 for a random matrix. With M
    inputs and M' candidates it moves in steps of 1/(M(M' − 1)), where `recall` moves in steps of 1/M (1/3 for
    W_KQ² with K = 3 triggers)."""
    return float(rank_recall_tensor(weight, inputs, outputs, answers))


def rank_recall_tensor(weight: torch.Tensor, inputs: torch.Tensor, outputs: torch.Tensor, answers: torch.Tensor) -> torch.Tensor:
    """`rank_recall` as a 0-d float32 tensor on the weight's device (no read-back to the host)."""
    scores = inputs @ weight.T @ outputs.T
    right = scores.gather(1, answers[:, None])
    return ((scores < right).sum(dim=1).to(torch.float32) / (scores.shape[1] - 1)).mean()


def probe_targets(embeddings: FrozenEmbeddings, task: TriggerBigrams) -> dict[str, tuple[torch.Tensor, ...]]:
    """The ideal associative memory of each probed matrix, as (inputs, candidate outputs, answers) for `recall`:
    - wov2 (induction head's output): e_k ↦ u_k for every token k that can be an output (support of π_o), among
      all N output embeddings;
    - wkq2 (induction head's key-query): a trigger's embedding e_q ↦ its remapped embedding ẽ_q = W_OV¹ e_q
      (what the previous-token head wrote at the position after q), among all N remapped tokens;
    - wkq1 (previous-token head): p_t ↦ p_{t−1} for t = 2..T, among all T positions;
    - wov1 (the 1-layer model's only output matrix): e_k ↦ u_k as for wov2 (copying the attended token)."""
    device = embeddings.tokens.device
    tokens, positions, outputs = embeddings.tokens, embeddings.positions, embeddings.outputs
    remapped = tokens @ embeddings.remapping.T  # row k is ẽ_k
    copy = (tokens[task.outputs.to(device)], outputs, task.outputs.to(device))
    return {
        "wov2": copy,
        "wkq2": (tokens[task.triggers.to(device)], remapped, task.triggers.to(device)),
        "wkq1": (positions[1:], positions, torch.arange(len(positions) - 1, device=device)),
        "wov1": copy,
    }


def probes(model: AttentionOnlyTransformer, targets: dict) -> dict[str, float]:
    """Every probe column: the recall of the model's matrix against its ideal target (probe_*) and its rank recall
    (rank_*), NaN where the model does not train that matrix (the 1-layer model has no W_KQ², W_OV²; the 2-layer
    model's W_OV¹ is frozen)."""
    return {column: float(value) for column, value in probe_tensors(model, targets).items()}


def probe_tensors(model: AttentionOnlyTransformer, targets: dict) -> dict[str, torch.Tensor]:
    """`probes` as 0-d float32 tensors on the model's device, in the same order (no read-back to the host)."""
    values = {}
    for column, (name, _) in PROBED.items():
        weight = model.trained[name] if name in model.trained else None
        missing = torch.full((), float("nan"), device=model.token_embeddings.device)
        values[column] = missing if weight is None else recall_tensor(weight.detach(), *targets[name])
        values[column.replace("probe_", "rank_")] = missing if weight is None else rank_recall_tensor(weight.detach(), *targets[name])
    return values


def learned_step(steps: pd.Series, values: pd.Series, threshold: float) -> float:
    """The first recorded step at which a probe reaches `threshold`; NaN if it never does (or is not defined)."""
    reached = steps[values.to_numpy() >= threshold]
    return float(reached.iloc[0]) if len(reached) else float("nan")


def order_string(learned: dict[str, float]) -> str:
    """The probes by learned step, e.g. "W_OV² → W_KQ² → W_KQ¹"; probes learned at the same recorded step are
    joined by " = ", probes never learned are listed after "never:"."""
    rank = {column: index for index, column in enumerate(PROBED)}
    reached = sorted((step, rank[column], column) for column, step in learned.items() if np.isfinite(step))
    groups: list[list[str]] = []
    previous = None
    for step, _, column in reached:
        if step != previous:
            groups.append([])
            previous = step
        groups[-1].append(PROBED[column][1])
    text = " → ".join(" = ".join(group) for group in groups)
    never = [PROBED[column][1] for column, step in learned.items() if not np.isfinite(step)]
    return (text + ("; " if text else "") + "never: " + ", ".join(never)) if never else text


def learning_order(curves: pd.DataFrame, block: dict) -> pd.DataFrame:
    """Per (layers, optimizer, seed) run, for the recall probes (first recorded step with recall ≥
    `learned_threshold`) and, with prefix rank_, for the rank-recall probes (≥ `rank_threshold`): the step at which
    each probe is learned (NaN if never), the order string, and whether a 2-layer run shows slide 20's order
    W_OV² < W_KQ² < W_KQ¹ strictly (NA for 1-layer runs)."""
    rows = []
    for (layers, optimizer, seed), run in curves.sort_values("step").groupby(["layers", "optimizer", "seed"], sort=True):
        row = {"layers": layers, "optimizer": optimizer, "seed": seed, "threshold": block["learned_threshold"],
               "rank_threshold": block["rank_threshold"]}
        for prefix, threshold in (("", block["learned_threshold"]), ("rank_", block["rank_threshold"])):
            columns = {column: column.replace("probe_", prefix or "probe_") for column in PROBED}
            present = [column for column in PROBED if run[columns[column]].notna().any()]
            learned = {column: learned_step(run["step"], run[columns[column]], threshold) for column in present}
            row.update({prefix + column.replace("probe_", "learned_"): learned.get(column, np.nan) for column in PROBED})
            row[prefix + "order"] = order_string(learned)
            steps = [learned.get(column, np.nan) for column in SLIDES_ORDER]
            row[prefix + "matches_slides"] = (bool(np.all(np.isfinite(steps)) and steps[0] < steps[1] < steps[2])
                                              if layers == 2 else pd.NA)
        rows.append(row)
    table = pd.DataFrame(rows)
    for column in ("matches_slides", "rank_matches_slides"):
        table[column] = table[column].astype("boolean")
    return table
