"""The trained MLP memory of Bietti 2025, slide 9/25: its logits against a token-by-token computation, recall
counting, memorisation far below and far above m·d pairs, and a capacity table that repeats itself."""

import pandas as pd
import pytest
import torch
from helpers import stopped_at_every_save_point

from icdenoise.studies.memory import mlp
from icdenoise.studies.memory.embeddings import generator


TINY_BLOCK = {"ds": [8], "widths": [8, 32], "outputs": 2, "steps": 150, "learning_rate": 0.03, "threshold": 0.9,
              "precision": 0.05, "seeds": [5, 6], "max_pairs": 2048}


def test_logits_equal_the_slide_formula_token_by_token():
    rng = generator(11, 0)
    d, width, pairs, output_count = 6, 5, 7, 3
    inputs = torch.randn(pairs, d, generator=rng, dtype=torch.float32)
    outputs = torch.randn(output_count, d, generator=rng, dtype=torch.float32)
    w1 = torch.randn(d, width, generator=rng, dtype=torch.float32)
    w2 = torch.randn(d, width, generator=rng, dtype=torch.float32)
    logits = mlp.memory_logits(inputs, outputs, w1, w2)
    assert logits.shape == (pairs, output_count)
    for z in range(pairs):
        hidden = torch.clamp(w2.double().T @ inputs[z].double(), min=0.0)
        for y in range(output_count):
            expected = outputs[y].double() @ (w1.double() @ hidden)
            assert logits[z, y].item() == pytest.approx(expected.item(), rel=1e-5, abs=1e-5)


def test_recall_accuracy_counts_the_rows_whose_argmax_is_the_target():
    logits = torch.tensor([[3.0, 1.0, 0.0], [0.0, 2.0, 5.0], [1.0, 4.0, 0.5], [0.2, 0.1, 0.0]])
    assert mlp.recall_accuracy(logits, torch.tensor([0, 2, 1, 0])) == 1.0
    assert mlp.recall_accuracy(logits, torch.tensor([0, 1, 1, 2])) == 0.5
    assert mlp.recall_accuracy(logits, torch.tensor([1, 0, 0, 1])) == 0.0


def trained_recall(d: int, width: int, pairs: int, steps: int) -> float:
    inputs, outputs, targets = mlp.draw_pairs(3, d, pairs, 2)
    w1, w2 = mlp.initial_weights(generator(3, d, width, mlp.INITIAL_WEIGHTS), d, width)
    return mlp.trained_accuracy(inputs, targets, outputs, w1, w2, steps, learning_rate=0.03)


def test_training_stores_every_pair_far_below_md_and_fails_far_above():
    d, width, steps = 16, 16, 400
    assert trained_recall(d, width, pairs=width * d // 4, steps=steps) == 1.0
    assert trained_recall(d, width, pairs=8 * width * d, steps=steps) < 0.8


def test_training_leaves_the_initial_weights_unchanged():
    inputs, outputs, targets = mlp.draw_pairs(1, 8, 40, 2)
    w1, w2 = mlp.initial_weights(generator(1, 8, 4, mlp.INITIAL_WEIGHTS), 8, 4)
    w1_before, w2_before = w1.clone(), w2.clone()
    trained_w1, trained_w2 = mlp.train_memory(inputs, targets, outputs, w1, w2, steps=5, learning_rate=0.03)
    assert torch.equal(w1, w1_before) and torch.equal(w2, w2_before)
    assert not torch.equal(trained_w1, w1) and not torch.equal(trained_w2, w2)


@pytest.fixture(scope="module")
def tiny_table() -> pd.DataFrame:
    return mlp.capacity_table(TINY_BLOCK, 8)


def test_capacity_table_has_one_row_per_width_and_seed(tiny_table):
    assert list(tiny_table.columns) == ["memory", "map", "d", "m", "seed", "params_md", "capacity", "evaluations", "steps"]
    assert sorted(zip(tiny_table.m, tiny_table.seed)) == [(8, 5), (8, 6), (32, 5), (32, 6)]
    assert (tiny_table.params_md == tiny_table.m * tiny_table.d).all()
    assert (tiny_table.steps == 150).all() and (tiny_table.evaluations >= 2).all()


def test_capacity_grows_with_width_beyond_d(tiny_table):
    capacity = tiny_table.groupby("m").capacity.min()
    assert capacity[8] >= 8 * 8
    assert capacity[32] > 2 * tiny_table.groupby("m").capacity.max()[8]


def test_stored_pairs_at_the_capacity_pass_the_threshold():
    capacity, _ = mlp.capacity(TINY_BLOCK, 8, 8, TINY_BLOCK["seeds"][0])
    inputs, outputs, targets = mlp.draw_pairs(TINY_BLOCK["seeds"][0], 8, TINY_BLOCK["max_pairs"], 2)
    w1, w2 = mlp.initial_weights(generator(TINY_BLOCK["seeds"][0], 8, 8, mlp.INITIAL_WEIGHTS), 8, 8)
    accuracy = mlp.trained_accuracy(inputs[:capacity], targets[:capacity], outputs, w1, w2, TINY_BLOCK["steps"],
                                    TINY_BLOCK["learning_rate"])
    assert accuracy >= TINY_BLOCK["threshold"]


def test_same_block_gives_the_same_table_whatever_the_default_dtype(tiny_table):
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        again = mlp.capacity_table(TINY_BLOCK, 8)
    finally:
        torch.set_default_dtype(previous)
    pd.testing.assert_frame_equal(again, tiny_table)


def test_the_search_refuses_a_draw_too_short_for_the_capacity():
    with pytest.raises(ValueError, match="max_pairs"):
        mlp.capacity_table({**TINY_BLOCK, "widths": [8], "seeds": [5], "max_pairs": 64}, 8)


def test_a_table_stopped_before_every_training_and_resumed_gives_the_uninterrupted_table(tmp_path, caplog):
    """Stopped by a spent time budget before every training but each start's first, and continued by a new start
    that replays its bisections from the accuracies saved: the table equals one that never stopped, bit for bit, and
    each start trains once (the stops count the trainings, whose total is not known ahead)."""
    block = {**TINY_BLOCK, "widths": [8], "seeds": [5]}
    with caplog.at_level("INFO"):
        resumed, stops = stopped_at_every_save_point(lambda checkpoint: mlp.capacity_table(block, 8, checkpoint=checkpoint),
                                                     tmp_path / "table.checkpoint")
    reference = mlp.capacity_table(block, 8)
    assert stops == list(range(1, int(reference["evaluations"].sum())))
    assert f"checkpoint saved at step {stops[-1]} (" in caplog.text
    pd.testing.assert_frame_equal(resumed, reference, check_exact=True)
