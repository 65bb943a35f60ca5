"""The induction-head part of the memory study (Bietti 2025 slides 15-20) against independent computations: the
trigger-bigram sampler by transition counts, the stationary π_1 by power iteration, the attention model by an
explicit loop over positions, the recall probe on hand-built memories, the ideal memories solving the task,
the optimisers' configuration, determinism, a short training run, and the learning-order bookkeeping."""

import numpy as np
import pandas as pd
import pytest
import torch

from icdenoise.maths.sgd import HeavyBallSGD
from icdenoise.studies.memory.embeddings import generator
from icdenoise.studies.memory.induction import (
    AttentionOnlyTransformer,
    evaluate,
    frozen_embeddings,
    learning_order,
    make_optimizer,
    output_positions,
    probe_targets,
    probes,
    rank_recall,
    recall,
    stationary_distribution,
    train_run,
    trigger_bigrams,
)

F32 = torch.float32
TINY = {"vocabulary": 16, "triggers": 2, "concentration": 0.5, "outputs_from": "uniform", "length": 24, "d": 32, "layers": [1, 2],
        "optimizers": {"adam": {"learning_rate": 0.02}, "sgd": {"learning_rate": 2.0, "momentum": 0.9}},
        "steps": 40, "batch": 32, "record_every": 20, "test_sequences": 64,
        "learned_threshold": 0.9, "rank_threshold": 0.99, "seed": 3, "seeds": [0], "device": "cpu"}


def test_triggers_are_followed_by_their_sequence_output_and_other_tokens_by_the_bigrams():
    """Within each sequence every occurrence of q_k is followed by that sequence's o_k; elsewhere the empirical
    transition frequencies match π_b (binomial 5σ), the first token matches π_1, and o_k is uniform over the
    non-triggers."""
    block = dict(TINY, vocabulary=6, triggers=1, concentration=1.0)
    task = trigger_bigrams(block)
    tokens, outputs = task.sample(generator(11), 4000, 30)
    trigger = int(task.triggers[0])
    assert set(task.outputs.tolist()) == set(range(6)) - {trigger}
    previous, following = tokens[:, :-1], tokens[:, 1:]
    after_trigger = previous == trigger
    assert after_trigger.sum() > 1000
    assert torch.equal(following[after_trigger], outputs[:, 0, None].expand_as(following)[after_trigger])
    counts = np.zeros((6, 6))
    np.add.at(counts, (previous[~after_trigger].numpy(), following[~after_trigger].numpy()), 1)
    transitions = task.transitions.numpy()
    for i in set(range(6)) - {trigger}:
        total = counts[i].sum()
        spread = np.sqrt(total * transitions[i] * (1 - transitions[i])) + 1
        assert np.all(np.abs(counts[i] - total * transitions[i]) < 5 * spread)
    first = np.bincount(tokens[:, 0].numpy(), minlength=6)
    initial = task.initial.numpy()
    assert np.all(np.abs(first - 4000 * initial) < 5 * np.sqrt(4000 * initial * (1 - initial)) + 1)
    output_counts = np.bincount(outputs[:, 0].numpy(), minlength=6)[task.outputs.numpy()]
    assert np.all(np.abs(output_counts - 800) < 5 * np.sqrt(4000 * 0.2 * 0.8))


def test_bigram_outputs_follow_the_triggers_bigram_row_over_the_non_triggers():
    """The slides' o_k ~ π_b(·|q_k): the outputs' frequencies match the trigger's row of π_b restricted to the
    non-triggers and renormalised (binomial 5σ, a fixed draw), and a trigger is never an output."""
    block = dict(TINY, vocabulary=6, triggers=2, concentration=1.0, outputs_from="bigram")
    task = trigger_bigrams(block)
    _, outputs = task.sample(generator(12), 4000, 5)
    for k, trigger in enumerate(task.triggers.tolist()):
        row = task.transitions.numpy()[trigger, task.outputs.numpy()]
        expected = 4000 * row / row.sum()
        counts = np.bincount(outputs[:, k].numpy(), minlength=6)
        assert counts[task.triggers.numpy()].sum() == 0
        spread = np.sqrt(expected * (1 - row / row.sum())) + 1
        assert np.all(np.abs(counts[task.outputs.numpy()] - expected) < 5 * spread)
    with pytest.raises(ValueError, match="uniform, bigram"):
        trigger_bigrams(dict(block, outputs_from="zipf"))


def test_pi_1_is_stationary_and_the_triggers_are_its_most_frequent_tokens():
    task = trigger_bigrams(TINY)
    transitions = task.transitions.numpy()
    powered = np.full(16, 1 / 16) @ np.linalg.matrix_power(transitions, 200)
    np.testing.assert_allclose(task.initial.numpy(), powered, atol=1e-12)
    others = np.setdiff1d(np.arange(16), task.triggers.numpy())
    assert task.initial[task.triggers].min() >= task.initial[others].max()
    np.testing.assert_allclose(stationary_distribution(np.array([[0.9, 0.1], [0.5, 0.5]])), [5 / 6, 1 / 6])


def test_output_positions_are_the_second_and_later_occurrences_of_triggers():
    tokens = torch.tensor([[5, 1, 5, 2, 5, 1, 7, 7], [7, 7, 3, 7, 1, 2, 1, 1]])
    triggers = torch.tensor([1, 7])
    expected = torch.zeros_like(tokens, dtype=torch.bool)
    for b in range(2):
        for t in range(8):
            token = int(tokens[b, t])
            expected[b, t] = token in (1, 7) and token in tokens[b, :t].tolist()
    assert torch.equal(output_positions(tokens, triggers), expected)
    assert expected.sum() == 6


def explicit_logits(model, tokens):
    """x_t^{l} = x_t^{l−1} + W_OV Σ_{s ≤ t} β_s x_s^{l−1}, β_s ∝ exp(x_sᵀ W_KQ x_t), one position at a time."""
    x = [model.token_embeddings[z] + model.position_embeddings[t] for t, z in enumerate(tokens.tolist())]
    for layer in range(1, model.layers + 1):
        key_query, output_value = model.matrix(f"wkq{layer}"), model.matrix(f"wov{layer}")
        updated = []
        for t in range(len(x)):
            scores = torch.stack([x[s] @ key_query @ x[t] for s in range(t + 1)])
            weights = torch.softmax(scores, dim=0)
            updated.append(x[t] + output_value @ sum(weights[s] * x[s] for s in range(t + 1)))
        x = updated
    return torch.stack([model.output_embeddings @ x_t for x_t in x])


@pytest.mark.parametrize("layers", [1, 2])
def test_the_model_equals_an_explicit_causal_loop_over_positions(layers):
    block = dict(TINY, length=10)
    model = AttentionOnlyTransformer(frozen_embeddings(block), layers, generator(0, 5))
    with torch.no_grad():
        for matrix in model.trained.values():
            matrix.mul_(8.0)  # sharp attention, so that a wrong mask or orientation shows
        tokens, _ = trigger_bigrams(block).sample(generator(1), 3, 10)
        logits = model(tokens)
        assert logits.dtype == F32 and logits.shape == (3, 10, 16)
        for b in range(3):
            torch.testing.assert_close(logits[b], explicit_logits(model, tokens[b]), rtol=1e-4, atol=1e-5)
        changed = tokens.clone()
        changed[:, 6:] = (changed[:, 6:] + 1) % 16
        torch.testing.assert_close(model(changed)[:, :6], logits[:, :6], rtol=0, atol=0)
        assert not torch.allclose(model(changed)[:, 6:], logits[:, 6:])
        where = torch.rand(3, 10, generator=generator(2)) < 0.4
        torch.testing.assert_close(model.logits_at(tokens, where), logits[where], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("layers", [1, 2])
def test_the_first_layers_gathered_products_have_attends_values_and_gradients(layers):
    """`first_layer` (every position) and `first_layer_at` (query positions) against `attend` on the formed
    residual vectors x_t = e_{z_t} + p_t, in value and, by autograd, in the gradients of the trained first-layer
    matrices (W_KQ¹; and W_OV¹ in the 1-layer model)."""
    block = dict(TINY, length=10)
    model = AttentionOnlyTransformer(frozen_embeddings(block), layers, generator(0, 5))
    with torch.no_grad():
        for matrix in model.trained.values():
            matrix.mul_(8.0)
    tokens, _ = trigger_bigrams(block).sample(generator(1), 3, 10)
    x = model.token_embeddings[tokens] + model.position_embeddings[:10]
    query_positions = torch.tensor([[2, 5, 9], [0, 3, 3], [7, 8, 1]])
    queries = x.gather(1, query_positions[..., None].expand(-1, -1, x.shape[2]))
    trained = [model.trained[name] for name in ("wkq1", "wov1") if name in model.trained]
    assert len(trained) == 3 - layers
    rng = generator(7)
    for fast, reference in ((model.first_layer(tokens), model.attend(1, x, x, torch.arange(10)[None])),
                            (model.first_layer_at(tokens, query_positions), model.attend(1, x, queries, query_positions))):
        torch.testing.assert_close(fast, reference, rtol=1e-5, atol=1e-5)
        cotangent = torch.randn(fast.shape, generator=rng)
        for mine, theirs in zip(torch.autograd.grad((fast * cotangent).sum(), trained),
                                torch.autograd.grad((reference * cotangent).sum(), trained)):
            torch.testing.assert_close(mine, theirs, rtol=1e-4, atol=1e-5)


def test_two_layer_model_trains_wkq1_wkq2_wov2_and_freezes_the_remapping():
    embeddings = frozen_embeddings(TINY)
    two = AttentionOnlyTransformer(embeddings, 2, generator(0, 5))
    assert set(two.trained) == {"wkq1", "wkq2", "wov2"}
    assert torch.equal(two.matrix("wov1"), embeddings.remapping) and not two.matrix("wov1").requires_grad
    one = AttentionOnlyTransformer(embeddings, 1, generator(0, 5))
    assert set(one.trained) == {"wkq1", "wov1"} and one.matrix("wkq2") is None


def test_recall_is_one_for_the_target_memory_and_chance_for_a_random_matrix():
    d, count = 256, 24
    rng = generator(7)
    inputs = torch.randn(count, d, generator=rng, dtype=F32) / d**0.5
    outputs = torch.randn(40, d, generator=rng, dtype=F32) / d**0.5
    answers = torch.randperm(40, generator=rng)[:count]
    target = outputs[answers].T @ inputs  # W* = Σ_i o_{a_i} x_iᵀ
    assert recall(target, inputs, outputs, answers) == 1.0
    orthonormal = torch.linalg.qr(torch.randn(d, d, generator=rng, dtype=torch.float64))[0].to(F32)
    identity_pairs = orthonormal[:count]
    assert recall(identity_pairs.T @ identity_pairs, identity_pairs, identity_pairs, torch.arange(count)) == 1.0
    chance = np.mean([recall(torch.randn(d, d, generator=rng, dtype=F32), inputs, outputs, answers)
                      for _ in range(300)])
    assert abs(chance - 1 / 40) < 0.01  # 300 × 24 Bernoulli(1/40) draws: σ ≈ 0.0018


def test_the_ideal_memories_score_one_on_every_probe_and_solve_the_task():
    """Set W_KQ¹ = β₁ Σ_t p_{t−1} p_tᵀ, W_KQ² = β₂ Σ_q (W_OV¹ e_q) e_qᵀ, W_OV² = α Σ_k u_k e_kᵀ (slide 19's
    induction head): every probe reads 1 and the model predicts the output tokens; without the previous-token
    head (W_KQ¹ = 0, uniform first-layer attention) it does not."""
    block = dict(TINY, d=512, length=20)
    task, embeddings = trigger_bigrams(block), frozen_embeddings(block)
    targets = probe_targets(embeddings, task)
    model = AttentionOnlyTransformer(embeddings, 2, generator(0, 5))
    with torch.no_grad():
        for name, scale in (("wkq1", 20.0), ("wkq2", 10.0), ("wov2", 20.0)):
            inputs, outputs, answers = targets[name]
            model.trained[name].copy_(scale * outputs[answers].T @ inputs)
    values = probes(model, targets)
    assert values["probe_wov2"] == values["probe_wkq2"] == values["probe_wkq1"] == 1.0
    assert np.isnan(values["probe_wov1"])
    tokens, _ = task.sample(generator(4), 200, 21)
    loss, accuracy = evaluate(model, tokens, task.triggers)
    assert accuracy > 0.97 and loss < 0.2  # finite-d cross-talk costs ≈ 1% at d = 512
    with torch.no_grad():
        model.trained["wkq1"].zero_()
    assert probes(model, targets)["probe_wkq1"] < 0.5
    assert evaluate(model, tokens, task.triggers)[1] < 0.7


def test_the_configured_optimisers_are_adam_and_heavy_ball_sgd():
    parameter = torch.zeros(3, requires_grad=True)
    sgd = make_optimizer("sgd", {"learning_rate": 0.3, "momentum": 0.9}, [parameter])
    assert isinstance(sgd, HeavyBallSGD) and sgd.momentum == 0.9 and sgd.lr == 0.3
    for _ in range(2):
        parameter.grad = torch.ones(3)
        sgd.step()
    torch.testing.assert_close(parameter.detach(), torch.full((3,), -0.3 * (1 + 1.9)))
    with pytest.raises(ValueError, match="adam, sgd"):
        make_optimizer("rmsprop", {"learning_rate": 0.1}, [parameter])


def test_a_short_run_is_deterministic_improves_the_loss_and_depends_on_its_seed():
    device = torch.device("cpu")
    first = train_run(TINY, 2, "adam", 0, device)
    again = train_run(TINY, 2, "adam", 0, device)
    pd.testing.assert_frame_equal(first, again, check_exact=True)
    assert first["step"].tolist() == [0, 20, 40]
    assert first["loss"].iloc[-1] < first["loss"].iloc[0] - 0.3
    assert first["probe_wov1"].isna().all() and first[["probe_wov2", "probe_wkq2", "probe_wkq1"]].notna().all().all()
    other = train_run(TINY, 2, "adam", 1, device)
    assert other["loss"].iloc[0] != first["loss"].iloc[0]  # another init, on the same test set
    one_layer = train_run(dict(TINY, steps=10, record_every=10), 1, "sgd", 0, device)
    assert one_layer[["probe_wov2", "probe_wkq2"]].isna().all().all() and one_layer["probe_wov1"].notna().all()
    assert first[["rank_wov2", "rank_wkq2", "rank_wkq1"]].notna().all().all() and first["rank_wov1"].isna().all()


def test_every_run_trains_its_whole_step_budget_whatever_its_loss_does():
    """No loss-triggered stop: a run records every record_every steps up to its budget, and its rows do not
    depend on how its loss falls (no column a stop rule would set)."""
    budget = train_run(dict(TINY, steps=60), 2, "adam", 0, torch.device("cpu"))
    assert budget["step"].tolist() == [0, 20, 40, 60]
    assert "stopped" not in budget and "settled" not in budget


def test_rank_recall_resolves_what_recall_rounds():
    inputs, outputs = torch.eye(3, 4), torch.eye(4)
    answers = torch.arange(3)
    perfect = torch.eye(4)
    assert rank_recall(perfect, inputs, outputs, answers) == 1.0 and recall(perfect, inputs, outputs, answers) == 1.0
    second = torch.eye(4)  # the right answer scores 1, one wrong candidate 2: recall 0 for that input, rank recall 2/3
    second[3, 0] = 2.0
    assert recall(second, inputs, outputs, answers) == pytest.approx(2 / 3)
    assert rank_recall(second, inputs, outputs, answers) == pytest.approx((2 / 3 + 1 + 1) / 3)


def test_learning_order_reports_first_steps_at_threshold_ties_and_never():
    steps = [0, 10, 20, 30]
    curves = pd.DataFrame({
        "step": steps * 3, "layers": [2] * 8 + [1] * 4, "optimizer": ["adam"] * 4 + ["sgd"] * 4 + ["adam"] * 4,
        "seed": 0,
        "probe_wov2": [0.1, 0.95, 0.8, 1.0] + [0.1, 0.9, 1.0, 1.0] + [np.nan] * 4,
        "probe_wkq2": [0.0, 0.5, 1.0, 1.0] + [0.0, 1.0, 1.0, 1.0] + [np.nan] * 4,
        "probe_wkq1": [0.0, 0.2, 0.5, 0.91] + [0.0, 0.2, 0.5, 0.6] + [0.0, 0.0, 0.1, 0.0],
        "probe_wov1": [np.nan] * 8 + [0.2, 0.9, 1.0, 1.0],
    })
    for name in ("wov2", "wkq2", "wkq1", "wov1"):  # rank probes: W_KQ² passes 0.99 before W_OV² in the adam run
        curves[f"rank_{name}"] = curves[f"probe_{name}"]
    curves.loc[(curves["optimizer"] == "adam") & (curves["layers"] == 2), "rank_wkq2"] = [0.5, 0.995, 1.0, 1.0]
    order = learning_order(curves, {"learned_threshold": 0.9, "rank_threshold": 0.99}).set_index(["layers", "optimizer"])
    adam = order.loc[(2, "adam")]
    assert (adam["learned_wov2"], adam["learned_wkq2"], adam["learned_wkq1"]) == (10, 20, 30)
    assert adam["order"] == "W_OV² → W_KQ² → W_KQ¹" and bool(adam["matches_slides"])
    assert (adam["rank_learned_wov2"], adam["rank_learned_wkq2"]) == (30, 10) and not bool(adam["rank_matches_slides"])
    assert adam["rank_order"] == "W_KQ² → W_OV²; never: W_KQ¹"
    sgd = order.loc[(2, "sgd")]
    assert sgd["order"] == "W_OV² = W_KQ²; never: W_KQ¹" and not bool(sgd["matches_slides"])
    one = order.loc[(1, "adam")]
    assert one["learned_wov1"] == 10 and np.isnan(one["learned_wkq1"]) and pd.isna(one["matches_slides"])
    assert one["order"] == "W_OV¹; never: W_KQ¹"


@pytest.mark.parametrize("steps, outcome", [
    ((60, 80, 2090), 1.0),                # every probe learned, strictly in order
    ((60, 60, 1160), 0.0),                # a tie at the recording resolution breaks it
    ((60, 50, np.nan), 0.0),              # a reversal among the learned: decided though W_KQ¹ is missing
    ((np.nan, 50, 900), 0.0),             # a later probe learned while an earlier never is
    ((60, np.nan, 900), 0.0),
    ((60, 80, np.nan), np.nan),           # in order so far, the last not within the budget: undecided
    ((60, np.nan, np.nan), np.nan),
    ((np.nan, np.nan, np.nan), np.nan),
])
def test_an_order_outcome_is_decided_by_ties_and_reversals_and_undecided_only_by_a_missing_last_probe(steps, outcome):
    from icdenoise.studies.memory.claims import order_outcome

    assert order_outcome(steps) == outcome or (np.isnan(outcome) and np.isnan(order_outcome(steps)))


def induction_order(*seeds) -> dict:
    """The frames of the order claims: one 2-layer SGD row per seed, its rank-recall steps in slide 20's order."""
    rows = [{"layers": 2, "optimizer": "sgd", "seed": seed, "rank_learned_wov2": wov2, "rank_learned_wkq2": wkq2, "rank_learned_wkq1": wkq1}
            for seed, (wov2, wkq2, wkq1) in enumerate(seeds)]
    return {"induction_order": pd.DataFrame(rows)}


def test_every_seed_fails_on_one_decided_break_whatever_the_undecided_seeds_and_waits_for_them_otherwise():
    from icdenoise.records.claims import ledger
    from icdenoise.studies.memory.claims import CLAIMS

    spec = {"inconclusive": ["undecided_seed"], "paper_value": 1.0, "comparison": "at_least", "tolerance": 0.0, "tolerance_reason": "every seed"}
    claim = {"induction_probe_order_sgd_every_seed": CLAIMS["induction_probe_order_sgd_every_seed"]}

    def judged(*seeds):
        row = ledger(claim, induction_order(*seeds), {"induction_probe_order_sgd_every_seed": spec}).iloc[0]
        return row["verdict"], row["n_values"], row["why_inconclusive"]

    # the GPU check's case: seed 2's W_KQ¹ learned at 2090 on one device and not within the budget on the other
    cpu, gpu = judged((70, 70, 1960), (50, 50, np.nan), (60, 80, np.nan)), judged((70, 70, 2090), (50, 50, np.nan), (60, 80, 2090))
    assert cpu[:2] == ("FAIL", 2) and gpu[:2] == ("FAIL", 3)
    assert judged((60, 80, 900), (50, 70, 800))[:2] == ("PASS", 2)
    verdict, values, why = judged((60, 80, 900), (50, 70, np.nan))
    assert verdict == "INCONCLUSIVE" and values == 1 and why.startswith("undecided_seed: seed 1:")
    verdict, _, why = judged((60, 80, np.nan), (50, np.nan, np.nan))
    assert verdict == "INCONCLUSIVE" and "seeds 0, 1" in why


@pytest.mark.parametrize("successes, trials", [(0, 3), (1, 3), (2, 3), (3, 3), (0, 1), (7, 20)])
def test_the_order_claims_interval_is_the_exact_binomial_one(successes, trials):
    from scipy.stats import binomtest

    from icdenoise.studies.memory.claims import clopper_pearson

    exact = binomtest(successes, trials).proportion_ci(confidence_level=0.95, method="exact")
    assert clopper_pearson(successes, trials) == pytest.approx((exact.low, exact.high), abs=1e-12)
