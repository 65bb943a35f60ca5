"""Training an ensemble model on one dataset, whatever its architecture (protocol: Figs 3, 4a, 7).

Adam on a per-seed loss (the per-coordinate MSE, torch's MSELoss, i.e. eq. 9 divided by batch size
and n), summed over seeds, with the learning rate multiplied by `lr_decay_factor` at
each fraction of the epochs in `lr_decay_at`. Seeds vary the weight initialisation and the
minibatch order; the dataset is the same for all of them. The loss on the full train and test
sets is recorded at step 0 and then every `record_every` optimiser steps. A run whose recorded loss
is not finite, or over `DIVERGENCE_FACTOR` times the zero predictor's, stops with TrainingDiverged, which
carries the `Divergence` (where, which seeds, the losses recorded so far): a sweep point's job writes it as
its record instead of failing (workflow/scripts/train_ensemble.py).
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

from icdenoise.maths.adam import Adam
from icdenoise.maths.models import EnsembleModel
from icdenoise.maths.scoring import squared_error_per_seed
from icdenoise.maths.seeding import seed_generators

log = logging.getLogger(__name__)


class TrainingDiverged(FloatingPointError):
    """A recorded loss is NaN, infinite or over `DIVERGENCE_FACTOR` times the zero predictor's: the
    message names the run (case, L, model), the seeds and the step; `divergence` is the `Divergence` of
    `train_ensemble`'s check (None where another training raises it); `step` and `loss`: where a training of one
    model stopped, where it says."""

    def __init__(self, message: str, divergence: "Divergence | None" = None, step: int | None = None,
                 loss: float | None = None):
        super().__init__(message)
        self.divergence, self.step, self.loss = divergence, step, loss


# A recorded loss over this many times the zero predictor's loss on the same split (the mean squared
# target, what predicting 0 scores) means the run has diverged. Healthy runs stay below 3 times it (the
# trainings of config.yaml's and smoke.yaml's cases, full length, measured 2026-11-26: the largest ratio
# is at initialisation, step 0); a learning rate of 10 passes it within the first epoch.
DIVERGENCE_FACTOR = 100.0


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


class LossRecorder:
    """The recorded losses of a run: every seed's MSE per coordinate on the full train and test splits, at
    the steps `record` is called. A record snapshots the parameters; the snapshots are scored
    `model.snapshots_per_pass` at a time (one stacked ensemble), so a record costs no pass of its own."""

    def __init__(self, model: EnsembleModel, train: tuple[torch.Tensor, Split], test: tuple[torch.Tensor, Split],
                 device: torch.device):
        self.model, self.splits, self.device = model, (train, test), device  # splits: (prepared features, split)
        self.steps: list[int] = []
        self.losses: list[torch.Tensor] = []  # each (2, S): train, test
        self.pending: list[dict[str, torch.Tensor]] = []  # snapshots of recorded steps not yet scored
        self.checked = 0  # records already checked for divergence
        with torch.no_grad():  # (2,): the zero predictor's loss on each split, the scale of `first_diverged`
            self.zero_losses = torch.stack([split.target.square().mean() for _, split in self.splits])

    def state(self) -> dict:
        """The records so far, scored or not (a checkpoint): scoring the pending snapshots early would change how
        they are stacked, and so the rounding of their losses."""
        return {"steps": list(self.steps), "losses": [loss.cpu() for loss in self.losses], "checked": self.checked,
                "pending": [{name: value.cpu() for name, value in snapshot.items()} for snapshot in self.pending]}

    def load_state(self, state: dict) -> None:
        self.steps, self.checked = list(state["steps"]), state["checked"]
        self.losses = [loss.to(self.device) for loss in state["losses"]]
        self.pending = [{name: value.to(self.device) for name, value in snapshot.items()} for snapshot in state["pending"]]

    def record(self, step: int) -> None:
        self.steps.append(step)
        self.pending.append(self.model.snapshot())
        if len(self.pending) == self.model.snapshots_per_pass:
            self.score_pending()

    def score_pending(self) -> None:
        if not self.pending:
            return
        model = self.model
        scored = model if model.snapshots_per_pass == 1 else model.stacked(self.pending)  # with 1, pending holds the current parameters
        with torch.no_grad():
            values = torch.stack([
                recorded_loss(scored, features, split.query, split.target, self.device).view(len(self.pending), -1)
                for features, split in self.splits
            ], dim=1)  # (snapshots, 2, S)
        self.losses.extend(values.unbind(0))
        self.pending.clear()

    def first_diverged(self) -> tuple[int, torch.Tensor, torch.Tensor] | None:
        """The first record since the last call with a loss that is not finite or over `DIVERGENCE_FACTOR`
        times the zero predictor's: (its step, its (2, S) losses, the (2,) zero predictor's losses), on
        the CPU; or None. Checking only when asked, not at every record, keeps a GPU from waiting for
        the host every few steps."""
        self.score_pending()
        if self.checked == len(self.losses):
            return None
        values = torch.stack(self.losses[self.checked:])  # (records, 2, S)
        healthy = torch.isfinite(values) & (values <= DIVERGENCE_FACTOR * self.zero_losses.view(1, 2, 1))
        healthy = healthy.flatten(1).all(dim=1).cpu()  # (records,)
        first_unchecked, self.checked = self.checked, len(self.losses)
        if bool(healthy.all()):
            return None
        first = int((~healthy).nonzero()[0, 0])
        return self.steps[first_unchecked + first], values[first].cpu(), self.zero_losses.cpu()

    def table(self, seeds: list[int], steps_per_epoch: int) -> pd.DataFrame:
        """Long format: seed, step, epoch (fractional: step / steps per epoch), split (train|test), mse."""
        values = torch.stack(self.losses).cpu().double().numpy()  # (records, 2, S)
        record_index, split_index, seed_index = np.meshgrid(*(np.arange(k) for k in values.shape), indexing="ij")
        steps = np.asarray(self.steps)[record_index.ravel()]
        return pd.DataFrame({
            "seed": np.asarray(seeds)[seed_index.ravel()],
            "step": steps,
            "epoch": steps / steps_per_epoch,
            "split": np.array(["train", "test"])[split_index.ravel()],
            "mse": values.ravel(),
        })


@dataclass(frozen=True)
class Divergence:
    """Where a training diverged: the step of its first diverged record, every seed's train and test loss
    there, the zero predictor's on each split, and every record up to the check that found it."""

    step: int
    epoch: float  # step / steps per epoch
    seeds: tuple[int, ...]
    diverged: tuple[bool, ...]  # per seed: its loss on a split is not finite or over DIVERGENCE_FACTOR times the zero predictor's
    losses: np.ndarray  # (2, S): train, test
    zero_losses: np.ndarray  # (2,): train, test
    recorded: pd.DataFrame  # LossRecorder.table: the losses recorded until training stopped

    def table(self) -> pd.DataFrame:
        """One row per seed: seed, status (`diverged`, or `stopped`: its own loss was healthy, but it trained
        with seeds that diverged), step, epoch, train_loss, test_loss, zero_train_loss, zero_test_loss."""
        return pd.DataFrame({
            "seed": list(self.seeds),
            "status": np.where(self.diverged, "diverged", "stopped"),
            "step": self.step,
            "epoch": self.epoch,
            "train_loss": self.losses[0],
            "test_loss": self.losses[1],
            "zero_train_loss": self.zero_losses[0],
            "zero_test_loss": self.zero_losses[1],
        })


def check_diverged(recorder: LossRecorder, run: str, seeds: list[int], steps_per_epoch: int) -> None:
    """Raise TrainingDiverged at the first diverged record since the last check (`LossRecorder.first_diverged`),
    naming the run, the seeds and the step: the seeds whose loss is not finite if there are any, else
    those over `DIVERGENCE_FACTOR` times the zero predictor's loss, with the largest such loss; with its
    `Divergence`."""
    found = recorder.first_diverged()
    if found is None:
        return
    step, values, zero = found
    healthy = torch.isfinite(values) & (values <= DIVERGENCE_FACTOR * zero.view(2, 1))  # as first_diverged decides
    divergence = Divergence(step, step / steps_per_epoch, tuple(seeds), tuple((~healthy.all(dim=0)).tolist()),
                            values.double().numpy(), zero.double().numpy(), recorder.table(seeds, steps_per_epoch))
    at = f"at step {step} (epoch {step / steps_per_epoch:.2f}); lower the learning rate or check the data"
    not_finite = ~torch.isfinite(values).all(dim=0)
    if bool(not_finite.any()):
        diverged = [seed for seed, bad in zip(seeds, not_finite.tolist()) if bad]
        raise TrainingDiverged(f"{run}: the loss of seed(s) {diverged} is not finite {at}", divergence)
    ratios = values / zero.view(2, 1)
    over = (ratios > DIVERGENCE_FACTOR).any(dim=0)
    diverged = [seed for seed, bad in zip(seeds, over.tolist()) if bad]
    split, seed_index = divmod(int(ratios.argmax()), len(seeds))
    raise TrainingDiverged(
        f"{run}: the loss of seed(s) {diverged} is over {DIVERGENCE_FACTOR:g} times the zero predictor's {at}: "
        f"seed {seeds[seed_index]}'s {('train', 'test')[split]} loss is {float(values[split, seed_index]):.4g}, "
        f"the zero predictor's {float(zero[split]):.4g}", divergence)


def progress(step: int, first: int, total: int, elapsed: float) -> str:
    """A log line's progress: `step` of `total`, the steps a second since `first` (where this process started)
    `elapsed` seconds ago, and the time left at that rate."""
    rate = (step - first) / elapsed if elapsed > 0 else 0.0
    left = f"{(total - step) / rate:.0f} s left" if rate > 0 else "time left unknown"
    return f"step {step} of {total}, {rate:.0f} steps/s, {left}"


def train_step(model: EnsembleModel, optimizer: Adam, minibatch: MinibatchGather, index: torch.Tensor) -> None:
    """One Adam step of every seed on its own minibatch (`index`: (S, B) prompt indices) of the mean loss."""
    optimizer.zero_grad()
    model.set_minibatch_gradients(minibatch, index)
    optimizer.step()


def train_ensemble(
    model: EnsembleModel,
    train: Split,
    test: Split,
    seeds: list[int],
    settings: TrainingSettings,
    device: torch.device,
    run: str = "training",
    checkpoint=None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Train every seed's model on the same data; return (losses, weights) in long format.

    `run` names the run in logs and errors. `checkpoint` (an icdenoise.pipeline.checkpoints.Checkpoint, or None):
    the run continues from its saved state, and saves at the end of an epoch when it is due (the parameters,
    Adam's state, the epoch, the step and the records: the minibatch orders follow from the seeds), with the
    same numbers as a run that was never stopped. A recorded loss that is not finite, or over
    `DIVERGENCE_FACTOR` times the zero predictor's, stops training with TrainingDiverged, naming the
    run, the seeds and the step of the record (checked every tenth of the epochs, where the progress is
    logged, and at the end). losses: `LossRecorder.table`; weights: the model's `to_frame` of the
    initial and the final parameters.
    """
    n_train = train.context.shape[0]
    initial = model.to_frame(seeds, "initial")
    model = model.to(device)
    train, test = train.to(device), test.to(device)
    train_features = model.prepare(train.context)
    recorder = LossRecorder(model, (train_features, train), (model.prepare(test.context), test), device)
    optimizer = Adam(model.parameters(), lr=settings.lr)
    decays = Counter(settings.decay_epochs())  # epoch → how many decays fall on it (MultiStepLR's milestones)
    # (epochs, S, n_train): a step's (S, B) block of indices, flattened, is one contiguous index_select
    # (advanced indexing with a strided (S, B) index gathers several times slower on the CPU)
    orders = torch.as_tensor(minibatch_orders(seeds, n_train, settings.epochs).transpose(1, 0, 2).copy(), device=device)
    steps_per_epoch = math.ceil(n_train / settings.batch_size)
    minibatch = MinibatchGather(train_features, train.query, train.target)

    started = time.perf_counter()
    step, first_epoch = 0, 0
    saved = checkpoint.resume() if checkpoint is not None else None
    if saved is None:
        recorder.record(step)
    else:
        model.load_state_dict(saved["model"])
        optimizer.load_state(saved["optimizer"])
        recorder.load_state(saved["recorder"])
        step, first_epoch = saved["step"], saved["epoch"]
    total, first_step = settings.epochs * steps_per_epoch, step
    for epoch in range(first_epoch, settings.epochs):
        for batch in range(steps_per_epoch):
            train_step(model, optimizer, minibatch, orders[epoch, :, batch * settings.batch_size : (batch + 1) * settings.batch_size])
            step += 1
            if step % settings.record_every == 0:
                recorder.record(step)
        if epoch + 1 in decays:
            optimizer.decay(settings.lr_decay_factor ** decays[epoch + 1])
        if (epoch + 1) % max(1, settings.epochs // 10) == 0 or epoch + 1 == settings.epochs:
            check_diverged(recorder, run, seeds, steps_per_epoch)
            train_loss, test_loss = recorder.losses[-1]
            elapsed = time.perf_counter() - started
            log.info(
                "%s: epoch %d/%d, %s, mean over %d seeds: train loss %.4f, test loss %.4f (%.1fs)",
                run, epoch + 1, settings.epochs, progress(step, first_step, total, elapsed), len(seeds),
                train_loss.mean().item(), test_loss.mean().item(), elapsed,
            )
        if checkpoint is not None and epoch + 1 < settings.epochs and checkpoint.due(step):
            checkpoint.save(step, total, {"model": {name: value.detach().cpu().clone() for name, value in model.state_dict().items()},
                                          "optimizer": optimizer.state(), "recorder": recorder.state(),
                                          "step": step, "epoch": epoch + 1})
    if step % settings.record_every != 0:
        recorder.record(step)
    check_diverged(recorder, run, seeds, steps_per_epoch)
    weights = pd.concat([initial, model.to_frame(seeds, "final")], ignore_index=True)
    return recorder.table(seeds, steps_per_epoch), weights
