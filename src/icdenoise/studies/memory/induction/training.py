"""Slide 20's training runs: exactly `steps` updates of the trained matrices with Adam or SGD on fresh
batches (a step budget registered with the claims, so that no verdict hangs on where a loss-triggered stop
would fire on one machine), the loss on the deterministic output tokens only, and a row of test loss,
accuracy and probes every `record_every` steps."""

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


def train_run(block: dict, layers: int, optimizer: str, seed: int, device: torch.device) -> pd.DataFrame:
    """One training run of slide 20's experiment: exactly `block["steps"]` updates of the trained matrices on
    fresh batches, with the loss on the output tokens after a trigger's second and later occurrences. Every
    `record_every` steps (and at the last), one row: test loss and accuracy on `test_sequences` sequences drawn
    from the block's seed, and the probes. The task and embeddings come from `block["seed"]`; the batches and the
    initial weights from `seed`."""
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
    rows, train_losses = [], []
    for step in range(block["steps"] + 1):
        if step % block["record_every"] == 0 or step == block["steps"]:
            loss, accuracy = evaluate(model, test_tokens, triggers)
            rows.append({"step": step, "layers": layers, "optimizer": optimizer, "seed": seed, "loss": loss,
                         "accuracy": accuracy, "train_loss": float(np.mean(train_losses)) if train_losses else np.nan,
                         **probes(model, targets)})
            train_losses = []
        if step == block["steps"]:
            break
        tokens, _ = task.sample(batches, block["batch"], block["length"] + 1)
        loss, _, _ = output_loss_and_hits(model, tokens.to(device), triggers)
        updates.zero_grad()
        loss.backward()
        updates.step()
        train_losses.append(float(loss.detach()))
    curves = pd.DataFrame(rows)
    for key in ("vocabulary", "triggers", "length", "d"):
        curves[key] = block[key]
    return curves
