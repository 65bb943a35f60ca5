"""Ensemble training: seeding, equivalence to one-by-one training, schedule and recording."""

import numpy as np
import pandas as pd
import pytest
import torch

from icdenoise.tasks import Sphere
from icdenoise.training import Split, TrainingSettings, initial_weights, train_ensemble

SETTINGS = TrainingSettings(epochs=5, batch_size=10, lr=0.01, lr_decay_at=(0.8, 0.9), lr_decay_factor=0.1, record_every=4)


@pytest.fixture(scope="module")
def splits():
    prompts = Sphere(n=4, d=1, radius=1.0, sigma_z_sq=0.1).sample(50, 20, seed=0)
    tensors = [torch.tensor(a, dtype=torch.float32) for a in (prompts.context, prompts.query, prompts.target)]
    return Split(*(t[:40] for t in tensors)), Split(*(t[40:] for t in tensors))


@pytest.mark.parametrize("model", ["linear", "softmax"])
def test_same_seed_gives_identical_tables(splits, model):
    first = train_ensemble(model, *splits, [0, 1], SETTINGS, torch.device("cpu"))
    second = train_ensemble(model, *splits, [0, 1], SETTINGS, torch.device("cpu"))
    for a, b in zip(first, second):
        pd.testing.assert_frame_equal(a, b, check_exact=True)


@pytest.mark.parametrize("model", ["linear", "softmax"])
def test_ensemble_training_equals_training_each_seed_alone(splits, model):
    together_losses, together_weights = train_ensemble(model, *splits, [3, 7], SETTINGS, torch.device("cpu"))
    alone_losses, alone_weights = train_ensemble(model, *splits, [7], SETTINGS, torch.device("cpu"))
    pick = lambda frame: frame[frame["seed"] == 7].reset_index(drop=True)
    np.testing.assert_allclose(pick(together_weights)["value"], alone_weights["value"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(pick(together_losses)["mse"], alone_losses["mse"], rtol=1e-5)


def test_seeds_differ_in_initialisation():
    w_kq, w_pv = initial_weights([0, 1], 4)
    assert not np.allclose(w_kq[0], w_kq[1])
    assert np.all(np.abs(w_kq) <= 0.5) and np.all(np.abs(w_pv) <= 0.5)


def test_recording_schedule_and_learning_rate_decay(splits):
    losses, weights = train_ensemble("linear", *splits, [0], SETTINGS, torch.device("cpu"))
    steps = sorted(losses["step"].unique())
    assert steps == [0, 4, 8, 12, 16, 20]  # 5 epochs × 4 steps, recorded every 4 steps
    assert set(losses["split"]) == {"train", "test"}
    assert set(weights["stage"]) == {"initial", "final"}
    assert TrainingSettings(100, 80, 0.01, (0.8, 0.9), 0.1, 4).decay_epochs() == [80, 90]


def test_training_reduces_the_loss(splits):
    settings = TrainingSettings(epochs=40, batch_size=10, lr=0.01, lr_decay_at=(0.8, 0.9), lr_decay_factor=0.1, record_every=4)
    losses, _ = train_ensemble("softmax", *splits, [0], settings, torch.device("cpu"))
    train = losses[losses["split"] == "train"].sort_values("step")["mse"].to_numpy()
    assert train[-1] < 0.5 * train[0]
