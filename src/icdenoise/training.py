"""Training an ensemble of attention models on one dataset (protocol: Figs 3, 4a, 7).

Adam on the per-coordinate MSE (torch's MSELoss, i.e. eq. 9 divided by batch size and n), with
the learning rate multiplied by `lr_decay_factor` at each fraction of the epochs in
`lr_decay_at`. Seeds vary the weight initialisation and the minibatch order; the dataset is the
same for all of them. The loss on the full train and test sets is recorded at step 0 and then
every `record_every` optimiser steps.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from .models import MODELS, AttentionEnsemble

log = logging.getLogger(__name__)


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
    """Context (N, L, n), query (N, n), target (N, n) of one split, as torch tensors."""

    context: torch.Tensor
    query: torch.Tensor
    target: torch.Tensor


def seed_generators(seed: int) -> tuple[np.random.Generator, np.random.Generator]:
    """Independent streams for (weight initialisation, minibatch order) of one seed."""
    init_sequence, order_sequence = np.random.SeedSequence(seed).spawn(2)
    return np.random.default_rng(init_sequence), np.random.default_rng(order_sequence)


def initial_weights(seeds: list[int], n: int) -> tuple[np.ndarray, np.ndarray]:
    """W_KQ, W_PV of shape (S, n, n), i.i.d. U[−1/√n, 1/√n] per seed."""
    bound = 1.0 / math.sqrt(n)
    w_kq, w_pv = [], []
    for seed in seeds:
        init_rng, _ = seed_generators(seed)
        w_kq.append(init_rng.uniform(-bound, bound, (n, n)))
        w_pv.append(init_rng.uniform(-bound, bound, (n, n)))
    return np.stack(w_kq), np.stack(w_pv)


def minibatch_orders(seeds: list[int], n_train: int, epochs: int) -> np.ndarray:
    """(S, epochs, n_train) shuffled prompt indices, one permutation per seed and epoch."""
    orders = []
    for seed in seeds:
        _, order_rng = seed_generators(seed)
        orders.append(np.stack([order_rng.permutation(n_train) for _ in range(epochs)]))
    return np.stack(orders)


def per_seed_mse(model: AttentionEnsemble, features: torch.Tensor, split: Split) -> torch.Tensor:
    """(S,) per-coordinate MSE of every seed's model on a whole split."""
    prediction = model(features, split.query)
    return ((prediction - split.target) ** 2).mean(dim=(1, 2))


def weights_frame(model: AttentionEnsemble, seeds: list[int], stage: str) -> pd.DataFrame:
    """Long-format weights: one row per (seed, matrix, row, col)."""
    frames = []
    for matrix, tensor in (("W_KQ", model.w_kq), ("W_PV", model.w_pv)):
        values = tensor.detach().cpu().double().numpy()
        seeds_count, n, _ = values.shape
        seed_index, row, col = np.meshgrid(np.arange(seeds_count), np.arange(n), np.arange(n), indexing="ij")
        frames.append(
            pd.DataFrame(
                {
                    "seed": np.asarray(seeds)[seed_index.ravel()],
                    "stage": stage,
                    "matrix": matrix,
                    "row": row.ravel(),
                    "col": col.ravel(),
                    "value": values.ravel(),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def train_ensemble(
    model_name: str,
    train: Split,
    test: Split,
    seeds: list[int],
    settings: TrainingSettings,
    device: torch.device,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Train one model per seed on the same data; return (losses, weights) in long format.

    losses: columns seed, step, epoch (fractional: step / steps per epoch), split (train|test), mse.
    weights: columns seed, stage (initial|final), matrix (W_KQ|W_PV), row, col, value.
    """
    n_train, _, n = train.context.shape
    w_kq, w_pv = initial_weights(seeds, n)
    model = MODELS[model_name](torch.as_tensor(w_kq, dtype=torch.float32), torch.as_tensor(w_pv, dtype=torch.float32)).to(device)
    initial = weights_frame(model, seeds, "initial")

    train = Split(*(t.to(device) for t in (train.context, train.query, train.target)))
    test = Split(*(t.to(device) for t in (test.context, test.query, test.target)))
    train_features, test_features = model.prepare(train.context), model.prepare(test.context)

    optimizer = torch.optim.Adam(model.parameters(), lr=settings.lr)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, settings.decay_epochs(), settings.lr_decay_factor)
    orders = torch.as_tensor(minibatch_orders(seeds, n_train, settings.epochs), device=device)
    steps_per_epoch = math.ceil(n_train / settings.batch_size)

    recorded_steps: list[int] = []
    recorded_mse: list[torch.Tensor] = []  # each (2, S): train, test

    def record(step: int) -> None:
        with torch.no_grad():
            recorded_steps.append(step)
            recorded_mse.append(torch.stack([per_seed_mse(model, train_features, train), per_seed_mse(model, test_features, test)]))

    started = time.perf_counter()
    step = 0
    record(step)
    for epoch in range(settings.epochs):
        for batch in range(steps_per_epoch):
            index = orders[:, epoch, batch * settings.batch_size : (batch + 1) * settings.batch_size]  # (S, B)
            prediction = model(train_features[index], train.query[index])
            loss = ((prediction - train.target[index]) ** 2).mean(dim=(1, 2)).sum()
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            step += 1
            if step % settings.record_every == 0:
                record(step)
        scheduler.step()
        if (epoch + 1) % max(1, settings.epochs // 10) == 0 or epoch + 1 == settings.epochs:
            train_mse, test_mse = recorded_mse[-1]
            log.info(
                "%s attention: epoch %d/%d, step %d, mean over %d seeds: train MSE/n %.4f, test MSE/n %.4f (%.1fs)",
                model_name, epoch + 1, settings.epochs, step, len(seeds),
                train_mse.mean().item(), test_mse.mean().item(), time.perf_counter() - started,
            )
    if step % settings.record_every != 0:
        record(step)

    mse = torch.stack(recorded_mse).cpu().double().numpy()  # (records, 2, S)
    record_index, split_index, seed_index = np.meshgrid(*(np.arange(k) for k in mse.shape), indexing="ij")
    steps = np.asarray(recorded_steps)[record_index.ravel()]
    losses = pd.DataFrame(
        {
            "seed": np.asarray(seeds)[seed_index.ravel()],
            "step": steps,
            "epoch": steps / steps_per_epoch,
            "split": np.array(["train", "test"])[split_index.ravel()],
            "mse": mse.ravel(),
        }
    )
    weights = pd.concat([initial, weights_frame(model, seeds, "final")], ignore_index=True)
    return losses, weights


def ensemble_from_frame(weights: pd.DataFrame, model_name: str, stage: str) -> tuple[list[int], AttentionEnsemble]:
    """The inverse of `weights_frame`: (seeds, float64 ensemble) of one stage (initial | final)."""
    selected = weights[weights["stage"] == stage]
    seeds = sorted(int(seed) for seed in selected["seed"].unique())
    n = int(selected["row"].max()) + 1
    matrices = {}
    for matrix in ("W_KQ", "W_PV"):
        rows = selected[selected["matrix"] == matrix].sort_values(["seed", "row", "col"])
        matrices[matrix] = torch.tensor(rows["value"].to_numpy().reshape(len(seeds), n, n), dtype=torch.float64)
    return seeds, MODELS[model_name](matrices["W_KQ"], matrices["W_PV"])


def predict(model: AttentionEnsemble, context: np.ndarray, query: np.ndarray) -> np.ndarray:
    """(S, N, n) predictions of every seed's model, in float64."""
    with torch.no_grad():
        features = model.prepare(torch.as_tensor(context, dtype=torch.float64))
        return model(features, torch.as_tensor(query, dtype=torch.float64)).numpy()
