"""The memory study's trainings stop on divergence (`divergence.check_losses`): a cross-entropy that is not finite or
over 100 times the uniform predictor's log(classes). Each training is driven there by a learning rate of 1e6 and
must raise `TrainingDiverged` naming its run and step, instead of ending with a table."""

import math

import pytest
import torch

from icdenoise.maths.training import TrainingDiverged
from icdenoise.studies.memory import mlp
from icdenoise.studies.memory.divergence import check_losses, first_diverged
from icdenoise.studies.memory.embeddings import generator
from icdenoise.studies.memory.factual import factual_task, train_point
from icdenoise.studies.memory.induction.training import train_run, train_static

INDUCTION = {"vocabulary": 16, "triggers": 2, "concentration": 0.5, "outputs_from": "uniform", "length": 24, "d": 32,
             "layers": [1], "optimizers": {"adam": {"learning_rate": 1e6}, "sgd": {"learning_rate": 1e6, "momentum": 0.9}},
             "steps": 12, "batch": 16, "record_every": 5, "test_sequences": 32, "learned_threshold": 0.9,
             "rank_threshold": 0.99, "seed": 3, "seeds": [0]}
CPU = torch.device("cpu")


def test_first_diverged_is_the_first_loss_not_finite_or_over_100_log_classes():
    bound = 100 * math.log(10)
    assert first_diverged([2.3, 1.0, bound], 10) is None  # at the bound is not over it
    assert first_diverged([2.3, float("nan"), bound * 2], 10) == 1
    assert first_diverged([2.3, 1.0, float("inf")], 10) == 2
    assert first_diverged(torch.tensor([2.3, bound * 1.01, float("nan")]), 10) == 1
    with pytest.raises(TrainingDiverged, match=r"^run x: cross-entropy 1000 at step 7, not finite or over 100 times the "
                                               r"uniform predictor's log\(2\) = 0.6931$"):
        check_losses([0.5, 1000.0], 2, "run x", first_step=6)


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_the_induction_head_stops_at_the_first_diverged_step_in_both_loops(optimizer):
    with pytest.raises(TrainingDiverged, match=rf"^induction head, 1 layer, {optimizer}, seed 0: cross-entropy \S+ at step (\d+)") as loop:
        train_run(INDUCTION, 1, optimizer, 0, CPU)
    with pytest.raises(TrainingDiverged, match=rf"^induction head, 1 layer, {optimizer}, seed 0: cross-entropy \S+ at step (\d+)") as static:
        train_static(INDUCTION, 1, optimizer, 0, CPU, capture=False, chunk_steps=5)
    step = str(loop.value).split(" at step ")[1].split(",")[0]
    assert int(step) >= 1 and str(static.value).split(" at step ")[1].split(",")[0] == step


def test_the_factual_model_stops_when_its_loss_diverges():
    task = factual_task(3, 2, 3, 4, 4, 3)
    training = {"steps": 20, "learning_rate": 1e6, "recall_draws": 2}
    with pytest.raises(TrainingDiverged, match=r"^factual recall, S = 3, R = 2, A = 3, d = 16, width 32, seed 0: cross-entropy \S+ "
                                               r"at step \d+, not finite or over 100 times the uniform predictor's log\(6\)"):
        train_point(task, 16, 2, 4, 32, training, 3, 0)


def test_the_mlp_memory_stops_when_its_loss_diverges():
    inputs, outputs, targets = mlp.draw_pairs(1, 8, 40, 4)
    w1, w2 = mlp.initial_weights(generator(1, 8, 4, mlp.INITIAL_WEIGHTS), 8, 4)
    with pytest.raises(TrainingDiverged, match=r"^MLP memory, 40 pairs, d = 8, width 4: cross-entropy \S+ at step \d+"):
        mlp.train_memory(inputs, targets, outputs, w1, w2, steps=30, learning_rate=1e6)
