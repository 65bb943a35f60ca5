"""The induction head's static training loop (`train_static`, the GPU's: fixed shapes, one CUDA graph per step)
against the loop as written (`train_run` on the CPU): its masked loss against the loss at the output positions
only, the same run up to float32 rounding with chunk boundaries inside the run, the same error for batches with
no output position, and, on a GPU, the captured graph against the same loop run eagerly."""

import pandas as pd
import pytest
import torch
from helpers import stopped_at_every_save_point

from icdenoise.studies.memory.embeddings import generator
from icdenoise.studies.memory.induction import AttentionOnlyTransformer, frozen_embeddings, output_loss_and_hits, trigger_bigrams
from icdenoise.studies.memory.induction.model import masked_output_loss
from icdenoise.studies.memory.induction.training import train_run, train_static

TINY = {"vocabulary": 16, "triggers": 2, "concentration": 0.5, "outputs_from": "uniform", "length": 24, "d": 32,
        "layers": [1, 2], "optimizers": {"adam": {"learning_rate": 0.02}, "sgd": {"learning_rate": 2.0, "momentum": 0.9}},
        "steps": 23, "batch": 32, "record_every": 5, "test_sequences": 64, "learned_threshold": 0.9,
        "rank_threshold": 0.99, "seed": 3, "seeds": [0]}
CPU = torch.device("cpu")
needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")


@pytest.mark.parametrize("layers", [1, 2])
def test_the_masked_loss_is_the_loss_at_the_output_positions_in_value_hits_and_gradient(layers):
    model = AttentionOnlyTransformer(frozen_embeddings(TINY), layers, generator(0, 5))
    with torch.no_grad():
        for matrix in model.trained.values():
            matrix.mul_(4.0)  # sharp attention, so that a wrong mask or position shows
    tokens, _ = trigger_bigrams(TINY).sample(generator(1), 32, 25)
    triggers = trigger_bigrams(TINY).triggers
    reference, reference_hits, reference_count = output_loss_and_hits(model, tokens, triggers)
    masked, hits, count = masked_output_loss(model, tokens, triggers)
    assert reference_count > 10 and int(count) == reference_count and int(hits) == int(reference_hits)
    torch.testing.assert_close(masked, reference, rtol=1e-6, atol=1e-7)
    trained = list(model.trained.values())
    for mine, theirs in zip(torch.autograd.grad(masked, trained), torch.autograd.grad(reference, trained)):
        torch.testing.assert_close(mine, theirs, rtol=1e-4, atol=1e-7)


@pytest.mark.parametrize(("layers", "optimizer"), [(1, "sgd"), (2, "adam")])
def test_the_static_loop_trains_the_loops_run_up_to_rounding_across_chunk_boundaries(layers, optimizer):
    """23 steps in chunks of 7: three whole chunks and a partial one, records every 5 steps and at the last."""
    reference = train_run(TINY, layers, optimizer, 0, CPU)
    static = train_static(TINY, layers, optimizer, 0, CPU, capture=False, chunk_steps=7)
    assert list(static.columns) == list(reference.columns)
    assert static["step"].tolist() == reference["step"].tolist() == [0, 5, 10, 15, 20, 23]
    pd.testing.assert_frame_equal(static, reference, check_exact=False, rtol=1e-4, atol=1e-6)
    assert reference["loss"].iloc[-1] != reference["loss"].iloc[0]  # the run trains: the comparison is not of constants


def test_batches_without_an_output_position_fail_both_loops_with_the_same_message():
    short = dict(TINY, length=2, steps=3)  # a trigger needs two occurrences before its output is fixed
    with pytest.raises(ValueError, match="no trigger occurs twice") as loop:
        train_run(short, 1, "adam", 0, CPU)
    with pytest.raises(ValueError, match="no trigger occurs twice") as static:
        train_static(short, 1, "adam", 0, CPU, capture=False)
    assert str(loop.value) == str(static.value)


def test_a_cuda_graph_needs_a_cuda_device():
    with pytest.raises(ValueError, match="CUDA graph needs a CUDA device"):
        train_static(TINY, 1, "adam", 0, CPU, capture=True)


@needs_cuda
@pytest.mark.parametrize(("layers", "optimizer"), [(1, "sgd"), (2, "adam"), (2, "sgd")])
def test_on_a_gpu_the_captured_step_replays_the_eager_step_and_train_run_uses_it(layers, optimizer):
    cuda = torch.device("cuda")
    eager = train_static(TINY, layers, optimizer, 0, cuda, capture=False, chunk_steps=7)
    graph = train_static(TINY, layers, optimizer, 0, cuda, capture=True, chunk_steps=7)
    pd.testing.assert_frame_equal(graph, eager, check_exact=False, rtol=1e-5, atol=1e-6)
    pd.testing.assert_frame_equal(train_run(TINY, layers, optimizer, 0, cuda), graph, check_exact=True)
    pd.testing.assert_frame_equal(train_run(TINY, layers, optimizer, 0, CPU), graph, check_exact=False, rtol=1e-3, atol=1e-5)


# checkpoints


@pytest.mark.parametrize("optimizer", ["adam", "sgd"])
@pytest.mark.parametrize("loop", ["per_step", "static"])
def test_a_run_stopped_at_every_save_point_and_resumed_gives_the_uninterrupted_curve_bit_for_bit(loop, optimizer, tmp_path):
    """Stopped by a spent time budget at every point where it can save (every step of the per-step loop, every chunk
    of the static one), saved, and continued by a new start that builds its task, model and generators afresh: the
    curve (test losses, accuracies and probes of the trained weights, and the training losses) equals a run that never
    stopped, bit for bit. The batches' generator is part of the state: without it the continued run would draw other
    batches."""
    def train(checkpoint=None):
        if loop == "per_step":
            return train_run(TINY, 2, optimizer, 0, CPU, checkpoint=checkpoint)
        return train_static(TINY, 2, optimizer, 0, CPU, capture=False, chunk_steps=7, checkpoint=checkpoint)

    resumed, stops = stopped_at_every_save_point(train, tmp_path / "run.checkpoint")
    assert stops == (list(range(1, TINY["steps"])) if loop == "per_step" else [7, 14, 21])
    pd.testing.assert_frame_equal(resumed, train(), check_exact=True)


def test_a_checkpoint_of_the_other_loop_is_refused_and_the_run_starts_again(tmp_path, caplog):
    """A job moved from a CPU to a GPU partition finds the per-step loop's checkpoint: the static loop refuses it,
    says why, and runs from step 0 to its own numbers."""
    from icdenoise.pipeline.checkpoints import Checkpoint, Stopped

    path = tmp_path / "run.checkpoint"
    checkpoint = Checkpoint(path, {"run": "test"}, every_s=None, budget_s=0.0)
    with pytest.raises(Stopped, match="checkpointed at step 1 of 23"):
        train_run(TINY, 1, "adam", 0, CPU, checkpoint=checkpoint)
    checkpoint.close()
    other = Checkpoint(path, {"run": "test"}, every_s=None)
    with caplog.at_level("WARNING"):
        static = train_static(TINY, 1, "adam", 0, CPU, capture=False, chunk_steps=7, checkpoint=other)
    other.finish()
    assert "it was saved by the per-step loop on cpu, this job runs the static loop on cpu" in caplog.text
    pd.testing.assert_frame_equal(static, train_static(TINY, 1, "adam", 0, CPU, capture=False, chunk_steps=7), check_exact=True)


@needs_cuda
@pytest.mark.parametrize("optimizer", ["adam", "sgd"])
@pytest.mark.parametrize("chunk_steps", [2, 7])
def test_on_a_gpu_a_captured_run_stopped_at_every_chunk_and_resumed_gives_the_uninterrupted_curve(optimizer, chunk_steps, tmp_path):
    """Continued before the warm-up ends (chunks of 2) or after it (chunks of 7, undone warm-up steps), every step
    replays the graph where the run that never stopped does: the same bits."""
    cuda = torch.device("cuda")

    def train(checkpoint=None):
        return train_static(TINY, 2, optimizer, 0, cuda, capture=True, chunk_steps=chunk_steps, checkpoint=checkpoint)

    resumed, stops = stopped_at_every_save_point(train, tmp_path / "run.checkpoint")
    assert stops == list(range(chunk_steps, TINY["steps"], chunk_steps))
    pd.testing.assert_frame_equal(resumed, train(), check_exact=True)
