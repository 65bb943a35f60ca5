"""Ensemble training: seeding, equivalence to one-by-one training, schedule and recording."""

import numpy as np
import pandas as pd
import pytest
import torch
from helpers import all_token_case, query_case

from icdenoise.maths.models import LinearAttention, SoftmaxAttention, StackedSelfAttention
from icdenoise.maths.tasks import GaussianMixture, Sphere
from icdenoise.maths.training import Split, TrainingSettings, train_ensemble

MODELS = {"linear": LinearAttention, "softmax": SoftmaxAttention}


def train_model(model: str, splits, seeds, settings):
    return train_ensemble(MODELS[model].initialise(seeds, 4), *splits, seeds, settings, torch.device("cpu"))

SETTINGS = TrainingSettings(epochs=5, batch_size=10, lr=0.01, lr_decay_at=(0.8, 0.9), lr_decay_factor=0.1, record_every=4)


@pytest.fixture(scope="module")
def splits():
    prompts = query_case(Sphere(n=4, d=1, radius=1.0), 0.1).sample(50, 20, seed=0)
    tensors = [torch.tensor(a, dtype=torch.float32) for a in (prompts.context, prompts.query, prompts.target)]
    return Split(*(t[:40] for t in tensors)), Split(*(t[40:] for t in tensors))


@pytest.mark.parametrize("model", ["linear", "softmax"])
def test_same_seed_gives_identical_tables(splits, model):
    first = train_model(model, splits, [0, 1], SETTINGS)
    second = train_model(model, splits, [0, 1], SETTINGS)
    for a, b in zip(first, second):
        pd.testing.assert_frame_equal(a, b, check_exact=True)


@pytest.mark.parametrize("model", ["linear", "softmax"])
def test_ensemble_training_equals_training_each_seed_alone(splits, model):
    together_losses, together_weights = train_model(model, splits, [3, 7], SETTINGS)
    alone_losses, alone_weights = train_model(model, splits, [7], SETTINGS)
    pick = lambda frame: frame[frame["seed"] == 7].reset_index(drop=True)
    np.testing.assert_allclose(pick(together_weights)["value"], alone_weights["value"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(pick(together_losses)["mse"], alone_losses["mse"], rtol=1e-5)


@pytest.mark.parametrize("model", ["linear", "softmax"])
@pytest.mark.parametrize("per_pass", [3, 64])
def test_losses_scored_from_snapshots_equal_losses_scored_at_each_record(splits, model, per_pass, monkeypatch):
    """Scoring the recorded steps' parameter snapshots several at a time (here 3, which leaves a
    remainder, or all of them) gives each step's losses as scoring at the step does, and leaves
    training itself untouched. 8 steps an epoch and a log point every 2 epochs: 4 records a log."""
    settings = TrainingSettings(epochs=20, batch_size=5, lr=0.01, lr_decay_at=(0.8, 0.9), lr_decay_factor=0.1, record_every=4)
    monkeypatch.setattr(MODELS[model], "snapshots_per_pass", 1)
    at_each_record = train_model(model, splits, [0, 1], settings)
    monkeypatch.setattr(MODELS[model], "snapshots_per_pass", per_pass)
    from_snapshots = train_model(model, splits, [0, 1], settings)
    pd.testing.assert_frame_equal(at_each_record[1], from_snapshots[1], check_exact=True)
    pd.testing.assert_frame_equal(at_each_record[0].drop(columns="mse"), from_snapshots[0].drop(columns="mse"), check_exact=True)
    np.testing.assert_allclose(from_snapshots[0]["mse"], at_each_record[0]["mse"], rtol=1e-5)


def test_a_stacked_ensemble_predicts_as_each_of_its_snapshots():
    """`stacked` keeps the architecture's options: snapshot r's seed s is model r·S + s."""
    from icdenoise.maths.models import SubspaceSelfAttention

    model = SubspaceSelfAttention.initialise([0, 1], 4, layers=2, heads=2, head_dim=1, eta=0.5, phi="softmax")
    first = model.snapshot()
    with torch.no_grad():
        model.weights["U_1"].mul_(0.5)
    stacked = model.stacked([first, model.snapshot()])
    context = torch.randn(3, 5, 4, dtype=torch.float32)
    with torch.no_grad():
        together = stacked(context, context).view(2, 2, 3, 5, 4)
        np.testing.assert_allclose(together[1], model(context, context), rtol=1e-6)
        np.testing.assert_allclose(together[0], SubspaceSelfAttention(first, heads=2, eta=0.5, phi="softmax")(context, context), rtol=1e-6)


def test_recording_schedule_and_learning_rate_decay(splits):
    losses, weights = train_model("linear", splits, [0], SETTINGS)
    steps = sorted(losses["step"].unique())
    assert steps == [0, 4, 8, 12, 16, 20]  # 5 epochs × 4 steps, recorded every 4 steps
    assert set(losses["split"]) == {"train", "test"}
    assert set(weights["stage"]) == {"initial", "final"}
    assert TrainingSettings(100, 80, 0.01, (0.8, 0.9), 0.1, 4).decay_epochs() == [80, 90]


def test_training_reduces_the_loss(splits):
    settings = TrainingSettings(epochs=40, batch_size=10, lr=0.01, lr_decay_at=(0.8, 0.9), lr_decay_factor=0.1, record_every=4)
    losses, _ = train_model("softmax", splits, [0], settings)
    train = losses[losses["split"] == "train"].sort_values("step")["mse"].to_numpy()
    assert train[-1] < 0.5 * train[0]


def test_a_multi_layer_model_trains_on_all_token_corruption_without_changes_to_training():
    """The stacked self-attention model, registered like any other, learns to denoise every token."""
    prompts = all_token_case(GaussianMixture(n=2, K=2, radius=1.0, sigma0_sq=0.01), 0.25).sample(60, 12, seed=1)
    context, target = (torch.tensor(array, dtype=torch.float32) for array in (prompts.context, prompts.target))
    train_split, test_split = Split(context[:48], context[:48], target[:48]), Split(context[48:], context[48:], target[48:])
    settings = TrainingSettings(epochs=30, batch_size=12, lr=0.01, lr_decay_at=(0.8, 0.9), lr_decay_factor=0.1, record_every=4)
    model = StackedSelfAttention.initialise([0, 1], 2, layers=2)
    losses, weights = train_ensemble(model, train_split, test_split, [0, 1], settings, torch.device("cpu"))
    test = losses[losses["split"] == "test"].groupby("step")["mse"].mean()
    assert test.iloc[-1] < 0.8 * test.iloc[0]
    assert set(weights["matrix"]) == {"W_KQ_1", "W_PV_1", "W_KQ_2", "W_PV_2"}


def test_a_diverging_run_fails_naming_the_run_the_seed_and_the_step(splits):
    """A float32 overflow in one seed's loss stops training at the first record that sees it."""
    from icdenoise.maths.training import TrainingDiverged

    train, test = splits
    poisoned = Split(train.context, train.query, train.target * 1e30)  # squared errors of 1e60 overflow float32
    with pytest.raises(TrainingDiverged, match=r"case x, model y: the loss of seed\(s\) \[0, 1\] is not finite at step 0"):
        train_ensemble(LinearAttention.initialise([0, 1], 4), poisoned, test, [0, 1], SETTINGS, torch.device("cpu"),
                       run="case x, model y")


def scaled_second_seed(scale: float) -> LinearAttention:
    """Seeds 0 and 1 of the linear model, seed 1's W_PV multiplied by `scale`: its loss is about scale² times seed 0's."""
    model = LinearAttention.initialise([0, 1], 4)
    with torch.no_grad():
        model.weights["W_PV"][1] *= scale
    return model


TINY_STEPS = TrainingSettings(epochs=5, batch_size=10, lr=1e-6, lr_decay_at=(0.8, 0.9), lr_decay_factor=0.1, record_every=4)


def test_a_loss_far_above_the_zero_predictors_fails_naming_the_run_the_seed_and_the_step(splits):
    """A finite loss over DIVERGENCE_FACTOR (100) times the zero predictor's is a divergence too: only the
    seed over it is named, with its loss and the zero predictor's."""
    from icdenoise.maths.training import TrainingDiverged

    with pytest.raises(TrainingDiverged, match=r"^case x, L = 20, model y: the loss of seed\(s\) \[1\] is over 100 times the "
                                               r"zero predictor's at step 0 \(epoch 0\.00\); .*: seed 1's (train|test) loss is"):
        train_ensemble(scaled_second_seed(100.0), *splits, [0, 1], TINY_STEPS, torch.device("cpu"), run="case x, L = 20, model y")


def test_a_learning_rate_of_10_fails_at_the_record_where_the_loss_blows_up(splits):
    """lr = 10 (1000 times the papers') sends the loss past 100 times the zero predictor's within the first
    epoch: the error names the first record step over it, not the check's step."""
    from icdenoise.maths.training import TrainingDiverged

    settings = TrainingSettings(epochs=5, batch_size=10, lr=10.0, lr_decay_at=(0.8, 0.9), lr_decay_factor=0.1, record_every=4)
    with pytest.raises(TrainingDiverged, match=r"case x, model y: the loss of seed\(s\) \[0, 1\] is over 100 times the zero "
                                               r"predictor's at step 4 \(epoch 1\.00\)"):
        train_ensemble(LinearAttention.initialise([0, 1], 4), *splits, [0, 1], settings, torch.device("cpu"), run="case x, model y")


def test_the_divergence_carries_its_step_every_seeds_losses_and_the_records_so_far(splits):
    """The exception of lr = 10 carries its `Divergence`: step 4 (epoch 1), both seeds diverged, their losses
    there equal to the recorded ones, which stop at the check that found it."""
    from icdenoise.maths.training import DIVERGENCE_FACTOR, TrainingDiverged

    settings = TrainingSettings(epochs=5, batch_size=10, lr=10.0, lr_decay_at=(0.8, 0.9), lr_decay_factor=0.1, record_every=4)
    with pytest.raises(TrainingDiverged) as raised:
        train_ensemble(LinearAttention.initialise([0, 1], 4), *splits, [0, 1], settings, torch.device("cpu"), run="case x, model y")
    divergence = raised.value.divergence
    assert (divergence.step, divergence.epoch, divergence.seeds) == (4, 1.0, (0, 1))
    table = divergence.table()
    assert table["status"].tolist() == ["diverged", "diverged"] and (table["step"] == 4).all()
    at_step = divergence.recorded[divergence.recorded["step"] == 4].pivot(index="seed", columns="split", values="mse")
    np.testing.assert_array_equal(table[["train_loss", "test_loss"]].to_numpy(), at_step[["train", "test"]].to_numpy())
    assert (table["train_loss"] > DIVERGENCE_FACTOR * table["zero_train_loss"]).all()
    assert divergence.recorded["step"].max() == 4  # 5 steps an epoch, recorded every 4; the check after epoch 1 found it


def test_a_seed_that_stayed_healthy_beside_a_diverged_one_is_stopped_not_diverged(splits):
    from icdenoise.maths.training import TrainingDiverged

    with pytest.raises(TrainingDiverged) as raised:
        train_ensemble(scaled_second_seed(100.0), *splits, [0, 1], TINY_STEPS, torch.device("cpu"), run="case x, L = 20, model y")
    table = raised.value.divergence.table()
    assert table[["seed", "status", "step"]].values.tolist() == [[0, "stopped", 0], [1, "diverged", 0]]


def test_a_loss_tens_of_times_the_zero_predictors_trains_on_with_its_numbers_unchanged(splits):
    """Below the factor nothing stops: seed 1 starts at over 10 times the zero predictor's loss (healthy runs
    of the repo's configs stay below 3), and seed 0's losses are those it has when trained alone."""
    losses, _ = train_ensemble(scaled_second_seed(30.0), *splits, [0, 1], TINY_STEPS, torch.device("cpu"))
    train, test = splits
    zero = losses["split"].map({"train": train.target.square().mean().item(), "test": test.target.square().mean().item()})
    assert (losses["mse"] / zero)[losses["seed"] == 1].max() > 10
    alone, _ = train_ensemble(LinearAttention.initialise([0], 4), *splits, [0], TINY_STEPS, torch.device("cpu"))
    np.testing.assert_allclose(losses[losses["seed"] == 0]["mse"], alone["mse"], rtol=1e-5)


@pytest.mark.parametrize("model", ["linear", "softmax"])
def test_a_run_stopped_and_resumed_gives_the_uninterrupted_runs_tables_bit_for_bit(splits, model, tmp_path):
    """Stopped by its time budget at the first epoch's end, saved, and continued by a second start; then stopped
    every 3 epochs: both continue to the same tables as a run that never stopped (the records pending scoring
    and Adam's moments included), and the finished run leaves no checkpoint."""
    from icdenoise.pipeline.checkpoints import Checkpoint, Stopped

    settings = TrainingSettings(epochs=20, batch_size=10, lr=0.01, lr_decay_at=(0.8, 0.9), lr_decay_factor=0.1, record_every=3)
    reference = train_model(model, splits, [0, 1], settings)
    for every in (None, 3):
        path = tmp_path / f"run-{every}.checkpoint"
        stops = 0
        while True:
            checkpoint = Checkpoint(path, {"run": "test"}, every_s=None, every_steps=every, budget_s=0.0)
            try:
                result = train_ensemble(MODELS[model].initialise([0, 1], 4), *splits, [0, 1], settings,
                                        torch.device("cpu"), checkpoint=checkpoint)
            except Stopped as stopped:
                checkpoint.close()
                stops += 1
                assert "run the same command to continue" in str(stopped) and path.is_file()
                continue
            checkpoint.finish()
            break
        assert stops == settings.epochs - 1  # a stop at every epoch's end but the last
        assert not path.exists()
        for a, b in zip(reference, result):
            pd.testing.assert_frame_equal(a, b, check_exact=True)


def test_a_checkpoint_of_another_job_is_refused_with_the_reason(splits, tmp_path, caplog):
    from icdenoise.pipeline.checkpoints import Checkpoint, Stopped

    settings = TrainingSettings(epochs=4, batch_size=10, lr=0.01, lr_decay_at=(0.8, 0.9), lr_decay_factor=0.1, record_every=4)
    path = tmp_path / "job.checkpoint"
    mine = {"rule": "train", "wildcards": {"case": "a"}, "params": {"lr": 0.01}, "inputs": {"data.parquet": "1" * 64}}
    checkpoint = Checkpoint(path, mine, every_s=None, budget_s=0.0)
    with pytest.raises(Stopped):
        train_ensemble(LinearAttention.initialise([0], 4), *splits, [0], settings, torch.device("cpu"), checkpoint=checkpoint)
    checkpoint.close()
    other = {**mine, "params": {"lr": 0.02}, "inputs": {"data.parquet": "2" * 64}}
    refused = Checkpoint(path, other, every_s=None)
    with caplog.at_level("WARNING"):
        assert refused.resume() is None
    refused.close()
    assert "belongs to another job (params differ; input data.parquet changed)" in caplog.text
