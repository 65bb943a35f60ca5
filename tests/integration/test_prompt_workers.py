"""`TrainingBatches` with its own pool of forked worker processes (unit tests start no process): the
batches are `sample_prompts`' in step order, and the pool is gone after the run, after an error too."""

import multiprocessing

import numpy as np
import pytest

from icdenoise.studies.mssa.regression import TrainingBatches, sample_prompts

pytestmark = pytest.mark.integration


def test_worker_processes_draw_the_per_step_batches_in_order():
    batches = TrainingBatches("sparse", 5, 2, 3, 4, 11, steps=9, chunk_steps=2, workers=2)
    with batches:
        iterator = iter(batches)
        chunks = [next(iterator)]
        assert len(multiprocessing.active_children()) == 2
        chunks += list(iterator)
    assert [first for first, _, _ in chunks] == [0, 2, 4, 6, 8]
    steps = [batch for _, xs, ys in chunks for batch in zip(xs, ys)]
    assert len(steps) == 9
    for step, (xs, ys) in enumerate(steps):
        expected_xs, expected_ys = sample_prompts("sparse", 5, 2, 3, 4, 11, start=step * 3)
        assert np.array_equal(xs, expected_xs.numpy()) and np.array_equal(ys, expected_ys.numpy())
    assert not multiprocessing.active_children()


def test_an_error_in_the_loop_shuts_the_workers_down():
    with pytest.raises(RuntimeError, match="stop"):
        with TrainingBatches("linear", 5, 2, 3, 4, 11, steps=400, chunk_steps=2, workers=2) as batches:
            for first, _, _ in batches:
                if first == 4:
                    raise RuntimeError("stop")
    assert not multiprocessing.active_children()
