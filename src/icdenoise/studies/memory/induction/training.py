"""Slide 20's training runs: updates of the trained matrices with Adam or SGD on fresh batches until the test
loss stops falling (at most `steps`), the
loss on the deterministic output tokens only, and a row of test loss, accuracy and probes every
`record_every` steps."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from icdenoise.maths.adam import Adam
from icdenoise.studies.memory.embeddings import generator
from icdenoise.studies.memory.induction.model import AttentionOnlyTransformer, frozen_embeddings, output_loss_and_hits
from icdenoise.studies.memory.induction.probes import probe_targets, probes
from icdenoise.studies.memory.induction.task import trigger_bigrams

TEST_SET, BATCHES, INITIAL_WEIGHTS = 3, 4, 5  # purpose codes of a run's generators (1: embeddings, 2: bigrams)


def make_optimizer(name: str, options: dict, parameters):
    """The configured optimiser: `adam` {learning_rate} (default betas and eps) or `sgd` {learning_rate, momentum}."""
    if name == "adam":
        return Adam(parameters, lr=options["learning_rate"])
    if name == "sgd":
        return torch.optim.SGD(parameters, lr=options["learning_rate"], momentum=options.get("momentum", 0.0))
    raise ValueError(f"unknown optimizer {name!r}; allowed: adam, sgd")


@torch.no_grad()
def evaluate(model: AttentionOnlyTransformer, test_tokens: torch.Tensor, triggers: torch.Tensor,
             chunk: int = 64) -> tuple[float, float]:
    """Test cross-entropy and accuracy over every output position of the test sequences, in chunks of sequences."""
    total_loss, total_hits, total_count = 0.0, 0, 0
    for start in range(0, len(test_tokens), chunk):
        loss, hits, count = output_loss_and_hits(model, test_tokens[start:start + chunk], triggers)
        total_loss += float(loss) * count
        total_hits += int(hits)
        total_count += count
    return total_loss / total_count, total_hits / total_count


def loss_stopped_falling(losses: list[float], steps: list[int], stop: dict) -> bool:
    """The stop rule, written before the runs: at a recorded step s ≥ stop['window'], training stops when the
    lowest test loss recorded in (s − window, s] is not below (1 − stop['improvement']) times the lowest
    recorded up to s − window."""
    if steps[-1] < stop["window"]:
        return False
    cut = steps[-1] - stop["window"]
    before = [loss for step, loss in zip(steps, losses) if step <= cut]
    recent = [loss for step, loss in zip(steps, losses) if step > cut]
    return bool(before and recent and min(recent) >= (1 - stop["improvement"]) * min(before))


def train_run(block: dict, layers: int, optimizer: str, seed: int, device: torch.device) -> pd.DataFrame:
    """One training run of slide 20's experiment: updates of the trained matrices on fresh batches, with the loss
    on the output tokens after a trigger's second and later occurrences, until the test loss stops falling
    (`loss_stopped_falling` with `block["stop"]`) or `block["steps"]` updates. Every `record_every` steps (and
    at the last), one row: test loss and accuracy on `test_sequences` sequences drawn from the block's seed, and
    the probes; every row also says whether the stop rule ended the run (`stopped`). The task and embeddings
    come from `block["seed"]`; the batches and the initial weights from `seed`."""
    if optimizer not in block["optimizers"]:
        raise ValueError(f"optimizer {optimizer!r} is not configured; configured: {', '.join(block['optimizers'])}")
    task = trigger_bigrams(block)
    embeddings = frozen_embeddings(block)
    triggers = task.triggers.to(device)
    model = AttentionOnlyTransformer(embeddings, layers, generator(seed, INITIAL_WEIGHTS, block["d"])).to(device)
    targets = probe_targets(embeddings.to(device), task)
    test_tokens, _ = task.sample(generator(block["seed"], TEST_SET), block["test_sequences"], block["length"] + 1)
    test_tokens = test_tokens.to(device)
    batches = generator(seed, BATCHES)
    updates = make_optimizer(optimizer, block["optimizers"][optimizer], model.trained.values())
    rows, train_losses, stopped = [], [], False
    for step in range(block["steps"] + 1):
        if step % block["record_every"] == 0 or step == block["steps"]:
            loss, accuracy = evaluate(model, test_tokens, triggers)
            rows.append({"step": step, "layers": layers, "optimizer": optimizer, "seed": seed, "loss": loss,
                         "accuracy": accuracy, "train_loss": float(np.mean(train_losses)) if train_losses else np.nan,
                         **probes(model, targets)})
            train_losses = []
            stopped = loss_stopped_falling([row["loss"] for row in rows], [row["step"] for row in rows], block["stop"])
        if step == block["steps"] or stopped:
            break
        tokens, _ = task.sample(batches, block["batch"], block["length"] + 1)
        loss, _, _ = output_loss_and_hits(model, tokens.to(device), triggers)
        updates.zero_grad()
        loss.backward()
        updates.step()
        train_losses.append(float(loss.detach()))
    curves = pd.DataFrame(rows)
    curves["stopped"] = stopped
    for key in ("vocabulary", "triggers", "length", "d"):
        curves[key] = block[key]
    return curves
