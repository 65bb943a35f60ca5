"""Training an ensemble model on one dataset, whatever its architecture (protocol: Figs 3, 4a, 7).

Adam on a per-seed loss (the per-coordinate MSE, torch's MSELoss, i.e. eq. 9 divided by batch size
and n), summed over seeds, with the learning rate multiplied by `lr_decay_factor` at
each fraction of the epochs in `lr_decay_at`. Seeds vary the weight initialisation and the
minibatch order; the dataset is the same for all of them. The loss on the full train and test
sets is recorded at step 0 and then every `record_every` optimiser steps.
"""

from __future__ import annotations

import logging
import math
import time
from collections import Counter
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from .adam import Adam
from .models import EnsembleModel
from .scoring import squared_error_per_seed
from .seeding import seed_generators

log = logging.getLogger(__name__)


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


RECORD_BLOCK_BYTES = 2**20  # on the CPU, a recorded loss runs over blocks of prompts with at most this many bytes of features
RECORD_SCORES_BYTES = 2**22  # ... and of per-seed intermediates, one row of features per seed (see recorded_loss)


def recorded_loss(model: EnsembleModel, features: torch.Tensor, query: torch.Tensor, target: torch.Tensor,
                  device: torch.device) -> torch.Tensor:
    """(S,): every seed's MSE per coordinate over all the prompts of a split.

    On the CPU it runs over blocks of prompts small enough for a core's cache, so that a block's
    features and scores are still cached when they are mixed and reduced, and weights the block
    means by their sizes: a different float summation order than one pass (about 1e-7 relative).
    A prompt's per-seed intermediate is taken as one row of its features (L scores for a softmax
    model's n × L features); with many seeds, as when snapshots are scored together, these limit the block.
    The softmax model's fused attention never writes its scores out, and ran as fast with blocks 1 to 10 times larger.
    """
    prompts = features.shape[0]
    if device.type != "cpu":
        return squared_error_per_seed(model(features, query), target)
    feature_bytes = features[0].numel() * features.element_size()
    intermediate_bytes = model.ensemble_size * feature_bytes // features.shape[1]
    size = max(1, min(RECORD_BLOCK_BYTES // feature_bytes, RECORD_SCORES_BYTES // intermediate_bytes))
    total = torch.zeros((), dtype=features.dtype, device=device)
    for start in range(0, prompts, size):
        block = slice(start, min(start + size, prompts))
        block_loss = squared_error_per_seed(model(features[block], query[block]), target[block])
        total = total + block_loss * ((block.stop - start) / prompts)
    return total


class MinibatchGather:
    """A minibatch of some per-prompt tensors: values[index] for an index of any shape, e.g. (S, B)
    for every seed's minibatch or (B,) for one seed's.

    One contiguous index_select per tensor, written into buffers reused from call to call (one set
    per index shape): advanced indexing with the strided (S, B) index, or a fresh tensor of S·B
    contexts each step (its pages faulted in anew), makes the gather slower than the step's
    arithmetic on the CPU. A buffer is overwritten only by the next call of the same shape, after the
    gradients that read it have been computed.
    """

    def __init__(self, *sources: torch.Tensor):
        self.sources = sources
        self.buffers: dict[tuple[int, ...], tuple[torch.Tensor, ...]] = {}

    def __call__(self, index: torch.Tensor) -> tuple[torch.Tensor, ...]:
        flat = index.reshape(-1)
        key = tuple(index.shape)
        if key not in self.buffers:
            self.buffers[key] = tuple(source.new_empty((flat.numel(), *source.shape[1:])) for source in self.sources)
        return tuple(torch.index_select(source, 0, flat, out=buffer).view(*key, *source.shape[1:])
                     for source, buffer in zip(self.sources, self.buffers[key]))


def train_ensemble(
    model: EnsembleModel,
    train: Split,
    test: Split,
    seeds: list[int],
    settings: TrainingSettings,
    device: torch.device,
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

    optimizer = Adam(model.parameters(), lr=settings.lr)
    decays = Counter(settings.decay_epochs())  # epoch → how many decays fall on it (MultiStepLR's milestones)
    # (epochs, S, n_train): a step's (S, B) block of indices, flattened, is one contiguous index_select
    # (advanced indexing with a strided (S, B) index gathers several times slower on the CPU)
    orders = torch.as_tensor(minibatch_orders(seeds, n_train, settings.epochs).transpose(1, 0, 2).copy(), device=device)
    steps_per_epoch = math.ceil(n_train / settings.batch_size)
    minibatch = MinibatchGather(train_features, train.query, train.target)

    recorded_steps: list[int] = []
    recorded_losses: list[torch.Tensor] = []  # each (2, S): train, test
    pending: list[dict[str, torch.Tensor]] = []  # snapshots of the parameters at recorded steps not yet scored

    def record(step: int) -> None:
        """Snapshot the parameters; their losses are computed `model.snapshots_per_pass` at a time."""
        recorded_steps.append(step)
        pending.append(model.snapshot())
        if len(pending) == model.snapshots_per_pass:
            score_pending()

    def score_pending() -> None:
        if not pending:
            return
        scored = model if model.snapshots_per_pass == 1 else model.stacked(pending)  # with 1, pending holds the current parameters
        with torch.no_grad():
            values = torch.stack([
                recorded_loss(scored, features, split.query, split.target, device).view(len(pending), -1)
                for features, split in ((train_features, train), (test_features, test))
            ], dim=1)  # (snapshots, 2, S)
        recorded_losses.extend(values.unbind(0))
        pending.clear()

    checked = 0

    def check_finite() -> None:
        """Raise at the first non-finite record since the last check. Checking at the log points only,
        not at every record, keeps a GPU from waiting for the host every few steps."""
        nonlocal checked
        score_pending()
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
            index = orders[epoch, :, batch * settings.batch_size : (batch + 1) * settings.batch_size]  # (S, B)
            optimizer.zero_grad()
            model.set_minibatch_gradients(minibatch, index)
            optimizer.step()
            step += 1
            if step % settings.record_every == 0:
                record(step)
        if epoch + 1 in decays:
            optimizer.decay(settings.lr_decay_factor ** decays[epoch + 1])
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
