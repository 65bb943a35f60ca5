"""Slide 21's three population gradient steps on the 2-layer induction model: why the order is forced (zero
gradients at W_OV² = 0), that each step moves only its matrix, the step against autograd and a finite
difference, the chunked gradient against a one-shot one, the second-occurrence loss positions, determinism, the
first step's W_OV² memory, and the learning-order bookkeeping."""

import numpy as np
import pandas as pd
import pytest
import torch

from icdenoise.studies.memory.embeddings import generator
from icdenoise.studies.memory.induction import AttentionOnlyTransformer, FrozenEmbeddings, frozen_embeddings, trigger_bigrams
from icdenoise.studies.memory.induction.population_steps import (
    batch_gradient,
    loss_positions,
    population_steps,
    sample_with_positions,
    stages,
    start_model,
    steps_in_order,
    summed_loss,
)

TINY = {"vocabulary": 16, "triggers": 3, "concentration": 1000.0, "outputs_from": "uniform", "length": 12, "d": 64,
        "positions": "second", "batch": 600, "chunk": 150, "step_sizes": {"wov2": 200.0, "wkq2": 500.0, "wkq1": 200.0},
        "test_sequences": 200, "rank_threshold": 0.99, "seed": 0, "seeds": [0], "device": "cpu"}
CPU = torch.device("cpu")


def tiny_pieces(block=TINY, seed=0):
    return sample_with_positions(trigger_bigrams(block), generator(seed, 9), block, CPU)


def test_second_occurrence_positions_match_an_explicit_count():
    tokens = torch.tensor([[5, 1, 5, 2, 5, 1, 7, 7, 1], [7, 7, 3, 7, 1, 2, 1, 1, 3]])
    triggers = torch.tensor([1, 7])
    for positions, wanted in (("second", lambda before: before == 1), ("all", lambda before: before >= 1)):
        expected = torch.zeros_like(tokens, dtype=torch.bool)
        for b in range(2):
            for t in range(tokens.shape[1]):
                token = int(tokens[b, t])
                expected[b, t] = token in (1, 7) and wanted(tokens[b, :t].tolist().count(token))
        assert torch.equal(loss_positions(tokens, triggers, positions), expected)
    assert loss_positions(tokens, triggers, "second").sum() == 4
    with pytest.raises(ValueError, match="second, all"):
        loss_positions(tokens, triggers, "third")


def test_at_w_ov2_zero_the_key_query_gradients_vanish():
    """With W_OV² = 0 the second layer writes nothing, so the loss does not depend on W_KQ²: its gradient is
    exactly zero and no step on it can come first. W_KQ¹'s gradient then runs only through the output embeddings'
    reading of the first layer's write, u_vᵀ W_OV¹: with u_v orthogonal to the range of W_OV¹ (the theorem's
    infinite width, where random embeddings are orthogonal) it is exactly zero too; with random embeddings it
    is not, but small."""
    model = start_model(TINY)
    pieces = tiny_pieces()
    assert torch.count_nonzero(batch_gradient(model, "wkq2", pieces)[0]) == 0
    random_wkq1 = batch_gradient(model, "wkq1", pieces)[0]
    wov2 = batch_gradient(model, "wov2", pieces)[0]
    assert 0 < random_wkq1.norm() < wov2.norm()
    embeddings = frozen_embeddings(TINY)
    half = TINY["d"] // 2
    outputs = embeddings.outputs.clone()
    outputs[:, half:] = 0  # u_v in the first half of the coordinates
    remapping = embeddings.remapping.clone()
    remapping[:half] = 0  # W_OV¹ writes into the second half
    orthogonal = AttentionOnlyTransformer(FrozenEmbeddings(embeddings.tokens, embeddings.positions, outputs, remapping),
                                          2, generator(0))
    with torch.no_grad():
        for weight in orthogonal.trained.values():
            weight.zero_()
    for name in ("wkq1", "wkq2"):
        assert torch.count_nonzero(batch_gradient(orthogonal, name, pieces)[0]) == 0
    assert batch_gradient(orthogonal, "wov2", pieces)[0].norm() > 0


def test_each_step_moves_only_its_matrix_by_minus_eta_times_the_autograd_gradient():
    """Stage by stage the named matrix, and only it, changes, by −η times the gradient that a direct autograd call
    gives on the stage's batch (the mean loss over its loss positions, all chunks at once)."""
    task = trigger_bigrams(TINY)
    before = None
    reference = start_model(TINY)
    for stage, name, model, count, noise in stages(TINY, 0):
        now = {key: weight.detach().clone() for key, weight in model.trained.items()}
        if stage == 0:
            assert name == "init" and all(torch.count_nonzero(weight) == 0 for weight in now.values())
        else:
            assert [key for key in now if not torch.equal(now[key], before[key])] == [name]
            pieces = sample_with_positions(task, generator(0, 6, stage), TINY, CPU)
            tokens = torch.cat([piece[0] for piece in pieces])
            mask = torch.cat([piece[1] for piece in pieces])
            assert int(mask.sum()) == count and 0 < noise < 10
            weight = reference.trained[name]
            loss = torch.nn.functional.cross_entropy(reference.logits_at(tokens[:, :-1], mask), tokens[:, 1:][mask])
            (direct,) = torch.autograd.grad(loss, [weight])
            torch.testing.assert_close(now[name] - before[name], -TINY["step_sizes"][name] * direct, rtol=1e-4, atol=1e-6)
            with torch.no_grad():
                weight.copy_(now[name])
        before = now


def test_the_gradient_matches_a_finite_difference():
    """In float64, ⟨∇_W L, V⟩ against (L(W + εV) − L(W − εV)) / 2ε along a random direction V, for each matrix, at a
    point where every matrix is nonzero."""
    model = start_model(TINY).double()
    rng = generator(5)
    with torch.no_grad():
        for weight in model.trained.values():
            weight.copy_(torch.randn(weight.shape, generator=rng, dtype=torch.float64))
    pieces = tiny_pieces()[:2]
    count = sum(int(mask.sum()) for _, mask in pieces)

    def mean_loss():
        with torch.no_grad():
            return sum(float(summed_loss(model, tokens, mask)) for tokens, mask in pieces) / count

    for name in ("wov2", "wkq2", "wkq1"):
        gradient = batch_gradient(model, name, pieces)[0]
        direction = torch.randn(gradient.shape, generator=rng, dtype=torch.float64)
        epsilon = 1e-5
        weight = model.trained[name]
        with torch.no_grad():
            weight.add_(epsilon * direction)
            up = mean_loss()
            weight.sub_(2 * epsilon * direction)
            down = mean_loss()
            weight.add_(epsilon * direction)
        assert (up - down) / (2 * epsilon) == pytest.approx(float((gradient * direction).sum()), rel=1e-6, abs=1e-9)


def test_the_chunked_gradient_equals_the_one_shot_gradient():
    model = start_model(TINY)
    with torch.no_grad():
        for index, weight in enumerate(model.trained.values()):
            weight.copy_(torch.randn(weight.shape, generator=generator(6, index)))
    pieces = tiny_pieces()
    one_shot = [(torch.cat([piece[0] for piece in pieces]), torch.cat([piece[1] for piece in pieces]))]
    for name in ("wov2", "wkq2", "wkq1"):
        chunked, _, count = batch_gradient(model, name, pieces)
        whole, _, whole_count = batch_gradient(model, name, one_shot)
        assert count == whole_count and len(pieces) > 2
        torch.testing.assert_close(chunked, whole, rtol=1e-4, atol=1e-7)


def test_population_steps_are_deterministic_and_the_first_step_learns_w_ov2():
    table = population_steps(TINY, 0)
    pd.testing.assert_frame_equal(table, population_steps(TINY, 0), check_exact=True)
    assert table["stage"].tolist() == [0, 1, 2, 3] and table["trained"].tolist() == ["init", "wov2", "wkq2", "wkq1"]
    assert (table["seed"] == 0).all() and table[["loss", "accuracy"]].notna().all().all()
    assert (table.loc[0, ["rank_wov2", "rank_wkq2", "rank_wkq1"]] == 0).all()  # W = 0 scores every candidate alike
    assert table.loc[1, "rank_wov2"] > 0.9  # one step on W_OV² already stores e_k ↦ u_k
    assert table.loc[1, ["rank_wkq2", "rank_wkq1"]].tolist() == [0, 0]  # the other matrices have not moved
    other = population_steps(TINY, 1)
    assert other["rank_wov2"].iloc[1] != table["rank_wov2"].iloc[1] or other["loss"].iloc[1] != table["loss"].iloc[1]
    with pytest.raises(ValueError, match="once each"):
        population_steps(dict(TINY, order=["wov2", "wov2", "wkq1"]), 0)


def test_steps_in_order_reads_the_first_stage_at_threshold_against_the_training_stage():
    ranks = {  # seed 0: each at its own stage; 1: W_KQ¹ never; 2: another order, each at its own stage
        0: ([0, 0.995, 0.995, 0.995], [0, 0, 0.999, 0.999], [0, 0, 0, 0.991]),
        1: ([0, 0.995, 0.995, 0.995], [0, 0, 0.999, 0.999], [0, 0, 0, 0.9]),
        2: ([0, 0.995, 0.995, 0.995], [0, 0, 0, 0.999], [0, 0, 0.991, 0.991]),
    }
    trained = {0: ["init", "wov2", "wkq2", "wkq1"], 1: ["init", "wov2", "wkq2", "wkq1"], 2: ["init", "wov2", "wkq1", "wkq2"]}
    table = pd.concat([pd.DataFrame({"stage": [0, 1, 2, 3], "trained": trained[seed], "seed": seed,
                                     "rank_wov2": wov2, "rank_wkq2": wkq2, "rank_wkq1": wkq1})
                       for seed, (wov2, wkq2, wkq1) in ranks.items()])
    order = steps_in_order(table.sample(frac=1.0, random_state=0), 0.99).set_index("seed")
    assert list(order.columns) == ["reached_wov2", "reached_wkq2", "reached_wkq1", "in_order", "rank_threshold"]
    assert order.loc[0, ["reached_wov2", "reached_wkq2", "reached_wkq1"]].tolist() == [1, 2, 3] and order.loc[0, "in_order"]
    assert np.isnan(order.loc[1, "reached_wkq1"]) and not order.loc[1, "in_order"]
    assert order.loc[2, ["reached_wkq2", "reached_wkq1"]].tolist() == [3, 2] and order.loc[2, "in_order"]
    early = table[table["seed"] == 0].assign(rank_wkq1=[0.995] * 4)  # reached at init, before its step
    assert not steps_in_order(early, 0.99)["in_order"].iloc[0]


def _steps_table(ranks: dict, trained: dict) -> pd.DataFrame:
    return pd.concat([pd.DataFrame({"stage": [0, 1, 2, 3], "trained": trained[seed], "seed": seed,
                                    "rank_wov2": wov2, "rank_wkq2": wkq2, "rank_wkq1": wkq1})
                      for seed, (wov2, wkq2, wkq1) in ranks.items()])


def test_each_probe_rises_most_at_its_own_step_above_chance():
    """population_steps_each_at_own_step, per seed against a hand count: 0 (each rises at its own step, above 1/2):
    1; 1 (W_KQ¹ rises at its own step only to 0.4, below chance): 0; 2 (the steps ran in another order, each probe at
    its own step): 0; 3 (W_KQ² rises by 0.5 at step 2 and again by 0.5 at step 3: not strictly largest at its own): 0;
    4 (W_OV² rises most at step 2, not at its own step 1): 0."""
    from icdenoise.studies.memory.claims import CLAIMS, own_step_rises

    slides = ["init", "wov2", "wkq2", "wkq1"]
    ranks = {
        0: ([0, 1.0, 1.0, 1.0], [0, 0, 0.91, 0.91], [0, 0, 0, 0.82]),
        1: ([0, 1.0, 1.0, 1.0], [0, 0, 0.91, 0.91], [0, 0, 0, 0.4]),
        2: ([0, 1.0, 1.0, 1.0], [0, 0, 0, 0.95], [0, 0, 0.9, 0.9]),
        3: ([0, 1.0, 1.0, 1.0], [0, 0, 0.5, 1.0], [0, 0, 0, 0.9]),
        4: ([0, 0.3, 0.9, 0.9], [0, 0, 0.91, 0.91], [0, 0, 0, 0.82]),
    }
    trained = {seed: slides for seed in ranks} | {2: ["init", "wov2", "wkq1", "wkq2"]}
    table = _steps_table(ranks, trained).sample(frac=1.0, random_state=1)  # the order of the rows must not matter
    values = CLAIMS["population_steps_each_at_own_step"].measure({"population_steps": table}, {})
    np.testing.assert_array_equal(values, [1, 0, 0, 0, 0])
    rises = own_step_rises(table[table["seed"] == 0])
    assert rises == {"wov2": {"own": 1.0, "largest": 1.0, "after": 1.0}, "wkq2": {"own": 2.0, "largest": 2.0, "after": 0.91},
                     "wkq1": {"own": 3.0, "largest": 3.0, "after": 0.82}}
    assert np.isnan(own_step_rises(table[table["seed"] == 3])["wkq2"]["largest"])
    assert own_step_rises(table[table["seed"] == 2])["wkq1"]["own"] == 2.0


def test_the_own_step_measure_reads_the_steps_table_of_a_run():
    """On a tiny run the measure agrees with its definition read off the table by hand: each probe's rank recall
    is 0 until its own stage (its matrix is still zero) and moves only there."""
    from icdenoise.studies.memory.claims import CLAIMS

    table = population_steps(TINY, 0)
    for stage, name in ((1, "wov2"), (2, "wkq2"), (3, "wkq1")):
        rank = table.sort_values("stage")[f"rank_{name}"].to_numpy()
        assert (rank[:stage] == 0).all() and (rank[stage:] == rank[stage]).all()
    expected = float(all(table.sort_values("stage")[f"rank_{name}"].iloc[stage] > 0.5
                         for stage, name in ((1, "wov2"), (2, "wkq2"), (3, "wkq1"))))
    assert CLAIMS["population_steps_each_at_own_step"].measure({"population_steps": table}, {}).tolist() == [expected]
