"""Training an ensemble model on one dataset, whatever its architecture (protocol: Figs 3, 4a, 7).

Adam on a per-seed loss (by default the per-coordinate MSE, torch's MSELoss, i.e. eq. 9 divided by
batch size and n), summed over seeds, with the learning rate multiplied by `lr_decay_factor` at
each fraction of the epochs in `lr_decay_at`. Seeds vary the weight initialisation and the
minibatch order; the dataset is the same for all of them. The loss on the full train and test
sets is recorded at step 0 and then every `record_every` optimiser steps.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd
import torch

from .models import EnsembleModel
from .scoring import squared_error_per_seed
from .seeding import seed_generators

log = logging.getLogger(__name__)

Loss = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]  # (prediction (S, B, ...), target) → (S,)


class TrainingDiverged(FloatingPointError):
    """A recorded loss is NaN or infinite: the run names the seeds and the step."""


@dataclass(frozen=True)
class TrainingSettings:
    epochs: int
    batch_size: int
    lr: float
    lr_decay_at: tuple[float, ...]
    lr_decay_factor: float
    record_every: int

    @classmethod
    def from_config(cls, training: dict, epochs: int) -> "TrainingSettings":
        return cls(
            epochs=epochs,
            batch_size=training["batch_size"],
            lr=training["lr"],
            lr_decay_at=tuple(training["lr_decay_at"]),
            lr_decay_factor=training["lr_decay_factor"],
            record_every=training["record_every"],
        )

    def decay_epochs(self) -> list[int]:
        """Epochs after which the learning rate drops, e.g. 80 and 90 of 100."""
        return [int(round(fraction * self.epochs)) for fraction in self.lr_decay_at]


@dataclass(frozen=True)
class Split:
    """Context (N, L, n), query and target of one split, as torch tensors."""

    context: torch.Tensor
    query: torch.Tensor
    target: torch.Tensor

    def to(self, device: torch.device) -> "Split":
        context = self.context.to(device)
        query = context if self.query is self.context else self.query.to(device)
        return Split(context, query, self.target.to(device))


def minibatch_orders(seeds: list[int], n_train: int, epochs: int) -> np.ndarray:
    """(S, epochs, n_train) shuffled prompt indices, one permutation per seed and epoch."""
    orders = []
    for seed in seeds:
        _, order_rng = seed_generators(seed)
        orders.append(np.stack([order_rng.permutation(n_train) for _ in range(epochs)]))
    return np.stack(orders)


def train_ensemble(
    model: EnsembleModel,
    train: Split,
    test: Split,
    seeds: list[int],
    settings: TrainingSettings,
    device: torch.device,
    loss: Loss = squared_error_per_seed,
    run: str = "training",
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Train every seed's model on the same data; return (losses, weights) in long format.

    `run` names the run in logs and errors. A non-finite recorded loss stops training with
    TrainingDiverged, naming the run, the seeds and the step of the record (every `record_every` steps).

    losses: columns seed, step, epoch (fractional: step / steps per epoch), split (train|test), mse.
    weights: the model's `to_frame` of the initial and the final parameters.
    """
    n_train = train.context.shape[0]
    initial = model.to_frame(seeds, "initial")
    model = model.to(device)
    train, test = train.to(device), test.to(device)
    train_features, test_features = model.prepare(train.context), model.prepare(test.context)

    optimizer = torch.optim.Adam(model.parameters(), lr=settings.lr)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, settings.decay_epochs(), settings.lr_decay_factor)
    orders = torch.as_tensor(minibatch_orders(seeds, n_train, settings.epochs), device=device)
    steps_per_epoch = math.ceil(n_train / settings.batch_size)

    recorded_steps: list[int] = []
    recorded_losses: list[torch.Tensor] = []  # each (2, S): train, test

    def record(step: int) -> None:
        with torch.no_grad():
            values = torch.stack([
                loss(model(features, split.query), split.target)
                for features, split in ((train_features, train), (test_features, test))
            ])
        recorded_steps.append(step)
        recorded_losses.append(values)

    checked = 0

    def check_finite() -> None:
        """Raise at the first non-finite record since the last check. Checking at the log points only,
        not at every record, keeps a GPU from waiting for the host every few steps."""
        nonlocal checked
        if checked == len(recorded_losses):
            return
        finite = torch.isfinite(torch.stack(recorded_losses[checked:])).all(dim=1).cpu()  # (records, S)
        checked = len(recorded_losses)
        if not bool(finite.all()):
            first = int((~finite).any(dim=1).nonzero()[0, 0])
            step = recorded_steps[checked - len(finite) + first]
            diverged = [seed for seed, ok in zip(seeds, finite[first].tolist()) if not ok]
            raise TrainingDiverged(f"{run}: the loss of seed(s) {diverged} is not finite at step {step} "
                                   f"(epoch {step / steps_per_epoch:.2f}); lower the learning rate or check the data")

    started = time.perf_counter()
    step = 0
    record(step)
    for epoch in range(settings.epochs):
        for batch in range(steps_per_epoch):
            index = orders[:, epoch, batch * settings.batch_size : (batch + 1) * settings.batch_size]  # (S, B)
            batch_loss = loss(model(train_features[index], train.query[index]), train.target[index]).sum()
            optimizer.zero_grad(set_to_none=True)
            batch_loss.backward()
            optimizer.step()
            step += 1
            if step % settings.record_every == 0:
                record(step)
        scheduler.step()
        if (epoch + 1) % max(1, settings.epochs // 10) == 0 or epoch + 1 == settings.epochs:
            check_finite()
            train_loss, test_loss = recorded_losses[-1]
            log.info(
                "%s: epoch %d/%d, step %d, mean over %d seeds: train loss %.4f, test loss %.4f (%.1fs)",
                run, epoch + 1, settings.epochs, step, len(seeds),
                train_loss.mean().item(), test_loss.mean().item(), time.perf_counter() - started,
            )
    if step % settings.record_every != 0:
        record(step)
    check_finite()

    values = torch.stack(recorded_losses).cpu().double().numpy()  # (records, 2, S)
    record_index, split_index, seed_index = np.meshgrid(*(np.arange(k) for k in values.shape), indexing="ij")
    steps = np.asarray(recorded_steps)[record_index.ravel()]
    losses = pd.DataFrame(
        {
            "seed": np.asarray(seeds)[seed_index.ravel()],
            "step": steps,
            "epoch": steps / steps_per_epoch,
            "split": np.array(["train", "test"])[split_index.ravel()],
            "mse": values.ravel(),
        }
    )
    weights = pd.concat([initial, model.to_frame(seeds, "final")], ignore_index=True)
    return losses, weights
