"""The mssa regression's static-buffer training loop (`train_static`, a CUDA graph on a GPU) against the
per-step loop (`train_per_step`), and the prompts it is fed (`TrainingBatches`). On a GPU the comparison runs in
tests/integration/test_gpu_kernels.py: there the models' attention is a Triton kernel, whose compiler starts processes."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import pytest
import torch

from icdenoise.maths.training import TrainingDiverged
from icdenoise.studies.mssa import regression, transformers
from icdenoise.studies.mssa.regression import TrainingBatches, draw_steps, sample_prompts
from icdenoise.studies.mssa.transformers import ARCHITECTURES, build_model, train_model, train_per_step, train_static

TINY = dict(d=4, width=16, heads=2, layers=2, max_examples=10)
RUN = dict(task="sparse", d=4, nonzeros=2, examples=10, steps=7, batch=5, learning_rate=3e-3, clip=0.5, seed=3)


def trained(loop, architecture: str, record_every: int, device: str = "cpu", **options) -> tuple[pd.DataFrame, dict]:
    model = build_model(architecture, **TINY, seed=1)
    curve = loop(model, record_every=record_every, device=device, **RUN, **options)
    return curve, {name: tensor.cpu() for name, tensor in model.state_dict().items()}


# prompts


@pytest.mark.parametrize("task", ["linear", "sparse"])
def test_draw_steps_stacks_the_batches_of_sample_prompts(task):
    xs, ys = draw_steps(task, 6, 2, 4, 5, seed=9, first_step=3, n_steps=2)
    assert xs.shape == (2, 4, 5, 6) and ys.shape == (2, 4, 5) and xs.dtype == ys.dtype == np.float32
    for index, step in enumerate((3, 4)):
        expected_xs, expected_ys = sample_prompts(task, 6, 2, 4, 5, seed=9, start=step * 4)
        assert np.array_equal(xs[index], expected_xs.numpy()) and np.array_equal(ys[index], expected_ys.numpy())


def batches_by_step(batches: TrainingBatches) -> list[tuple[np.ndarray, np.ndarray]]:
    steps = []
    with batches:
        for first, xs, ys in batches:
            assert first == len(steps)
            steps.extend(zip(xs, ys))
    return steps


@pytest.mark.parametrize("threads", [0, 3])
def test_training_batches_are_the_per_step_batches_in_order(threads):
    """Chunks of 3 of 8 steps (the last one short), drawn in the calling thread or 3 threads, 2 chunks ahead."""
    executor = ThreadPoolExecutor(threads) if threads else None
    batches = TrainingBatches("sparse", 6, 2, 4, 5, 9, steps=8, chunk_steps=3, ahead=2, executor=executor)
    steps = batches_by_step(batches)
    if executor:
        executor.shutdown()
    assert len(steps) == 8
    for step, (xs, ys) in enumerate(steps):
        expected_xs, expected_ys = sample_prompts("sparse", 6, 2, 4, 5, seed=9, start=step * 4)
        assert np.array_equal(xs, expected_xs.numpy()) and np.array_equal(ys, expected_ys.numpy())


def test_training_batches_keep_at_most_ahead_chunks_submitted():
    submitted = []

    class Recording(ThreadPoolExecutor):
        def submit(self, function, *args):
            submitted.append(args[-2])
            return super().submit(function, *args)

    with Recording(2) as executor:
        batches = TrainingBatches("linear", 3, 1, 2, 4, 0, steps=10, chunk_steps=2, ahead=2, executor=executor)
        chunks = iter(batches)
        next(chunks)
        assert submitted == [0, 2, 4]
        assert [first for first, _, _ in chunks] == [2, 4, 6, 8]
    assert submitted == [0, 2, 4, 6, 8]


# training


@pytest.mark.parametrize("architecture", ARCHITECTURES)
def test_static_loop_equals_the_per_step_loop_bitwise(architecture):
    """Same curve and same final weights and biases, to the bit, with chunks of 3 steps (the last one short)
    and records every 2 steps and at the last (step 6)."""
    per_step, per_step_weights = trained(train_per_step, architecture, record_every=2)
    static, static_weights = trained(train_static, architecture, record_every=2, capture=False, chunk_steps=3)
    assert list(static["step"]) == [0, 2, 4, 6]
    pd.testing.assert_frame_equal(static, per_step, check_exact=True)
    assert per_step_weights.keys() == static_weights.keys()
    for name in per_step_weights:
        assert torch.equal(per_step_weights[name], static_weights[name]), name
    assert not torch.equal(per_step_weights["read_in.weight"], build_model(architecture, **TINY, seed=1).state_dict()["read_in.weight"])


def test_static_loop_with_one_chunk_longer_than_the_run_and_records_every_step():
    per_step, _ = trained(train_per_step, "mssa", record_every=1)
    static, _ = trained(train_static, "mssa", record_every=1, capture=False, chunk_steps=100)
    pd.testing.assert_frame_equal(static, per_step, check_exact=True)


def test_train_model_on_the_cpu_is_the_per_step_loop():
    pd.testing.assert_frame_equal(trained(train_model, "mhsa", record_every=3)[0], trained(train_per_step, "mhsa", record_every=3)[0], check_exact=True)


def test_a_graph_needs_a_gpu():
    with pytest.raises(ValueError, match="CUDA"):
        trained(train_static, "mssa", record_every=2, capture=True)


def poison_step_4(monkeypatch, label: float) -> None:
    """Step 4's batch has one label set to `label`, and only step 4's."""
    def poisoned(task, d, nonzeros, n_prompts, examples, seed, start=0):
        xs, ys = sample_prompts(task, d, nonzeros, n_prompts, examples, seed, start)
        if start == 4 * RUN["batch"]:
            ys[1, 2] = label
        return xs, ys

    monkeypatch.setattr(regression, "sample_prompts", poisoned)
    monkeypatch.setattr(transformers, "sample_prompts", poisoned)


LOOPS = [(train_per_step, {}), (train_static, dict(capture=False, chunk_steps=3))]


@pytest.mark.parametrize("loop, options", LOOPS)
def test_divergence_names_the_first_step_whose_loss_is_not_finite(monkeypatch, loop, options):
    """One label NaN at step 4: its loss is the first that is not finite (the weights, then every later loss, follow).
    Records at steps 0, 5 and 6: the static loop reads steps 1-5 back at step 5 and names step 4."""
    poison_step_4(monkeypatch, float("nan"))
    with pytest.raises(TrainingDiverged, match=r"mssa on sparse, seed 3: loss nan at step 4, not finite or over 100 times the zero predictor's"):
        trained(loop, "mssa", record_every=5, **options)


@pytest.mark.parametrize("loop, options", LOOPS)
def test_divergence_names_the_first_step_whose_loss_is_far_above_the_zero_predictors(monkeypatch, loop, options):
    """One label of 1e4 at step 4, with 50 labels in the batch: its loss is about 2e6, over 100 times E[y²] (2 here),
    though finite; no step before it is."""
    poison_step_4(monkeypatch, 1e4)
    with pytest.raises(TrainingDiverged, match=r"mssa on sparse, seed 3: loss \S+ at step 4, not finite or over 100 times the zero predictor's 2$"):
        trained(loop, "mssa", record_every=5, **options)


# checkpoints


@pytest.mark.parametrize("loop, options", [(train_per_step, {}), (train_static, {"capture": False, "chunk_steps": 2})],
                         ids=["per_step", "static"])
def test_a_run_stopped_at_every_save_point_and_resumed_gives_the_uninterrupted_curve_and_weights(loop, options, tmp_path):
    """Stopped by a spent time budget at every point where it can save (every step of the per-step loop, every
    chunk of the static one), each time saved and continued by a new start with a new model: the curve and the
    weights equal those of a run that never stopped, bit for bit, and no checkpoint is left."""
    from icdenoise.pipeline.checkpoints import Checkpoint, Stopped

    reference = trained(loop, "mssa", record_every=2, **options)
    path, stops = tmp_path / "run.checkpoint", 0
    while True:
        checkpoint = Checkpoint(path, {"run": "test"}, every_s=None, budget_s=0.0)
        try:
            resumed = trained(loop, "mssa", record_every=2, checkpoint=checkpoint, **options)
        except Stopped:
            checkpoint.close()
            stops += 1
            continue
        checkpoint.finish()
        break
    assert stops == (RUN["steps"] - 1 if loop is train_per_step else (RUN["steps"] - 1) // 2)
    assert not path.exists()
    pd.testing.assert_frame_equal(resumed[0], reference[0], check_exact=True)
    for name, tensor in reference[1].items():
        assert torch.equal(resumed[1][name], tensor), name
