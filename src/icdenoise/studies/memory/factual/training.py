"""Training the factual-recall transformer (slide 11) and the recall grids of its phase diagram: attention + MLP
with S = R growing and the MLP width swept, attention-only with the embedding dimension swept."""

from __future__ import annotations

import math

import pandas as pd
import torch
from torch import nn

from icdenoise.maths.adam import Adam
from icdenoise.maths.thresholds import log_crossing
from icdenoise.studies.memory.divergence import check_losses
from icdenoise.studies.memory.embeddings import generator
from icdenoise.studies.memory.factual.model import FactualTransformer, factual_embeddings, trained_parameters
from icdenoise.studies.memory.factual.task import FactualTask, factual_task

INITIAL_WEIGHTS, TRAIN_NOISE, RECALL_NOISE = 13, 14, 15  # purpose codes (facts 11, embeddings 12)
MODELS = ("attention_mlp", "attention_only")
COLUMNS = ["model", "subjects", "relations", "answers", "facts", "d", "heads", "head_dim", "width", "parameters",
           "seed", "recall", "loss", "steps"]


@torch.no_grad()
def recall_of(model: FactualTransformer, task: FactualTask, rng: torch.Generator, draws: int) -> float:
    """Recall: the fraction of the draws·S·R sequences (every fact with `draws` fresh noise draws) whose argmax
    answer is a*(s, r)."""
    tokens, targets = task.sample(rng, draws)
    return float((model(tokens).argmax(dim=1) == targets).to(torch.float64).mean())


def train_point(task: FactualTask, d: int, heads: int, head_dim: int, width: int, training: dict, block_seed: int,
                seed: int, save=None, saved: dict | None = None) -> dict:
    """One grid point: the model on the block's embeddings, trained by Adam (learning_rate, default betas) for
    `training["steps"]` full-batch steps - every fact once per step with fresh noise - on the mean cross-entropy
    over the R·A answers; then its recall on `training["recall_draws"]` fresh noise draws per fact. Initial
    weights and noise come from `seed` and the grid point; the task and embeddings from `block_seed`. A loss that
    has diverged (`divergence.check_losses`) raises `TrainingDiverged` at its step.

    For checkpoints: `save(step, state)`, if given, is called before every step with a function that returns the
    point's state there (the model, Adam and the noise generator, the only one the steps draw from: the recall draws
    its own); `saved`, such a state, is where the training continues."""
    sizes = (task.subjects, task.relations, task.answers_per_relation, d, heads, head_dim, width)
    model = FactualTransformer(factual_embeddings(task, d, block_seed), heads, head_dim, width,
                               generator(seed, INITIAL_WEIGHTS, *sizes))
    noise = generator(seed, TRAIN_NOISE, *sizes)
    optimizer = Adam(model.parameters(), lr=training["learning_rate"])
    loss = torch.tensor(float("nan"))
    run = f"factual recall, S = {task.subjects}, R = {task.relations}, A = {task.answers_per_relation}, d = {d}, width {width}, seed {seed}"
    first = 0
    if saved is not None:
        model.load_state_dict(saved["model"])
        optimizer.load_state(saved["optimizer"])
        noise.set_state(saved["noise"])
        first = saved["step"]

    def state(step: int) -> dict:
        return {"model": {name: value.detach().clone() for name, value in model.state_dict().items()},
                "optimizer": optimizer.state(), "noise": noise.get_state(), "step": step}

    for step in range(first, training["steps"]):
        if save is not None:
            save(step, lambda step=step: state(step))
        tokens, targets = task.sample(noise, 1)
        loss = nn.functional.cross_entropy(model(tokens), targets)
        check_losses([loss.detach()], task.answer_count, run, first_step=step)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    recall = recall_of(model, task, generator(seed, RECALL_NOISE, *sizes), training["recall_draws"])
    parameters = trained_parameters(d, heads, head_dim, width)
    assert parameters == sum(p.numel() for p in model.parameters())
    return {"subjects": task.subjects, "relations": task.relations, "answers": task.answers_per_relation,
            "facts": task.facts, "d": d, "heads": heads, "head_dim": head_dim, "width": width,
            "parameters": parameters, "seed": seed, "recall": recall, "loss": float(loss.detach()),
            "steps": training["steps"]}


def grid_points(block: dict, model: str) -> list[dict]:
    """The grid of `model` as keyword dicts (subjects, relations, answers, d, heads, head_dim, width):
    - attention_mlp: S = R over `sizes`, A = `answers`, fixed d; heads = ceil(heads_multiple·(S + R)/d_h), so
      H·d_h ≈ heads_multiple·(S + R); every MLP width in `widths`;
    - attention_only: fixed S = `subjects`, heads and d_h; every (R, A) in `pairs` and d in `ds`; width 0."""
    if model == "attention_mlp":
        grid = block["attention_mlp"]
        head_dim = grid["head_dim"]
        return [{"subjects": size, "relations": size, "answers": grid["answers"], "d": grid["d"],
                 "heads": math.ceil(grid["heads_multiple"] * 2 * size / head_dim), "head_dim": head_dim, "width": width}
                for size in grid["sizes"] for width in grid["widths"]]
    if model == "attention_only":
        grid = block["attention_only"]
        return [{"subjects": grid["subjects"], "relations": relations, "answers": answers, "d": d,
                 "heads": grid["heads"], "head_dim": grid["head_dim"], "width": 0}
                for relations, answers in grid["pairs"] for d in grid["ds"]]
    raise ValueError(f"unknown model {model!r}; allowed: {', '.join(MODELS)}")


def recall_grid(block: dict, model: str, seed: int, checkpoint=None) -> pd.DataFrame:
    """One row per grid point of `model` (`grid_points`), trained from `seed` (`train_point`), in COLUMNS order.
    The task of each (S, R, A) and the embeddings come from `block["seed"]`.

    `checkpoint` (an icdenoise.pipeline.checkpoints.Checkpoint, or None): the grid continues from its saved state
    (the rows of the points done, and the point in training with its state) and saves before any step of any point
    when it is due, with the numbers of a grid that never stopped. Its steps count on across the points: point i's
    step t is step i·steps + t of points·steps."""
    points, steps = grid_points(block, model), block["training"]["steps"]
    total = len(points) * steps
    rows, start, inner = [], 0, None
    saved = checkpoint.resume() if checkpoint is not None else None
    if saved is not None:
        rows, start, inner = [dict(row) for row in saved["rows"]], saved["point"], saved["inner"]
    resumed_at = start * steps + (inner["step"] if inner is not None else 0)

    def save_at(index: int):
        def save(step: int, state) -> None:
            position = index * steps + step
            if resumed_at < position < total and checkpoint.due(position):
                checkpoint.save(position, total, {"rows": [dict(row) for row in rows], "point": index, "inner": state()})
        return save

    for index in range(start, len(points)):
        point = points[index]
        task = factual_task(point["subjects"], point["relations"], point["answers"], block["noise"], block["length"],
                            block["seed"])
        row = train_point(task, point["d"], point["heads"], point["head_dim"], point["width"], block["training"],
                          block["seed"], seed, save=save_at(index) if checkpoint is not None else None,
                          saved=inner if index == start else None)
        rows.append({"model": model, **row})
    return pd.DataFrame(rows, columns=COLUMNS)


def needed_sizes(grid: pd.DataFrame, threshold: float) -> pd.DataFrame:
    """Where recall (mean over seeds) first reaches `threshold`, per model kind and (S, R, A): along the MLP
    width for attention_mlp and along d for attention_only, the crossing in that axis and in the parameter
    count, each interpolated in log (`maths.thresholds.log_crossing`), next to R + A_max. NaN, with the
    reason, where the grid does not bracket the crossing."""
    rows = []
    keys = ["model", "subjects", "relations", "answers", "facts"]
    for key, group in grid.groupby(keys, sort=True):
        axis = "width" if key[0] == "attention_mlp" else "d"
        needed, reason = log_crossing(group[axis], group["recall"], threshold)
        parameters, _ = log_crossing(group["parameters"], group["recall"], threshold)
        rows.append({**dict(zip(keys, key)), "axis": axis, "needed": needed, "parameters": parameters, "reason": reason,
                     "relations_plus_answers": key[2] + key[3], "threshold": threshold})
    return pd.DataFrame(rows)
