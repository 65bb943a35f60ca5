"""The factual-recall part of the memory study (Bietti 2025 slides 10-13) against independent computations: the
sampler by counting, the transformer by an explicit loop over heads and positions, the parameter count by the
modules' numels, the linear-attention logits by a hand loop, the divergences by direct formulas, the closed-form
gradients by autograd, determinism, and a tiny grid that must memorise every fact."""

import math

import numpy as np
import pandas as pd
import pytest
import torch
from helpers import stopped_at_every_save_point

from icdenoise.maths.thresholds import ALWAYS
from icdenoise.studies.memory.embeddings import generator
from icdenoise.studies.memory.factual import (
    COLUMNS,
    DYNAMICS_COLUMNS,
    FactualTransformer,
    divergences,
    dynamics,
    dynamics_curves,
    factual_embeddings,
    factual_task,
    gradients,
    grid_points,
    linear_logits,
    needed_sizes,
    recall_grid,
    token_counts,
    trained_parameters,
)

TINY = {"seed": 3, "seeds": [0], "length": 4, "noise": 4,
        "attention_mlp": {"sizes": [3], "answers": 3, "d": 16, "head_dim": 4, "heads_multiple": 1.0, "widths": [32]},
        "attention_only": {"subjects": 3, "heads": 2, "head_dim": 4, "pairs": [[2, 3]], "ds": [24]},
        "training": {"steps": 100, "learning_rate": 0.03, "recall_draws": 2}, "recall_threshold": 0.99}
DYNAMICS = {"subjects": 8, "relations": 2, "answers": 3, "noise": 4, "length": 5, "draws": 2, "alpha": 0.1,
            "learning_rate": 2.0, "steps": 60, "record_every": 20, "seeds": [0]}


def test_sampler_places_subject_and_relation_once_noise_uniform_and_answers_in_their_relation():
    task = factual_task(5, 3, 4, noise=6, length=7, seed=1)
    assert all(int(task.answers[s, r]) // 4 == r for s in range(5) for r in range(3))  # a*(s, r) ∈ A_r
    tokens, targets = task.sample(generator(0, 99), draws=400)
    facts = task.facts
    assert tokens.shape == (400 * facts, 8) and bool((tokens[:, 7] == task.eos).all())
    body = tokens[:, :7]
    for row in (0, 1, facts + 7, 5 * facts + 14):
        s, r = divmod(row % facts, 3)
        assert int((body[row] == s).sum()) == 1 and int((body[row] == 5 + r).sum()) == 1
        assert int(((body[row] < 8) | (body[row] >= 14)).sum()) == 2  # the rest is noise
        assert int(targets[row]) == int(task.answers[s, r])
    noise = body[(body >= 8) & (body < 14)] - 8
    counts = np.bincount(noise.numpy(), minlength=6)
    expected = len(noise) / 6
    assert len(noise) == 400 * facts * 5
    assert np.all(np.abs(counts - expected) < 5 * math.sqrt(expected * 5 / 6))
    subject_places = (body == (torch.arange(len(body)) % facts // 3)[:, None]).to(torch.int64).argmax(dim=1)
    place_counts = np.bincount(subject_places.numpy(), minlength=7)
    expected = len(body) / 7
    assert np.all(np.abs(place_counts - expected) < 5 * math.sqrt(expected * 6 / 7))


@pytest.mark.parametrize("width", [0, 6])
def test_transformer_matches_an_explicit_loop_and_counts_its_parameters(width):
    task = factual_task(3, 2, 2, noise=3, length=4, seed=0)
    embeddings = factual_embeddings(task, 8, seed=0)
    heads, head_dim = 3, 2
    model = FactualTransformer(embeddings, heads, head_dim, width, generator(1, 2))
    assert sum(p.numel() for p in model.parameters()) == trained_parameters(8, heads, head_dim, width)
    assert trained_parameters(8, heads, head_dim, width) == 4 * heads * 8 * head_dim + 2 * width * 8
    tokens, _ = task.sample(generator(2), 1)
    with torch.no_grad():
        logits = model(tokens).double()
    e, u = embeddings.tokens.double(), embeddings.outputs.double()
    q, k, v, o = (p.detach().double() for p in (model.query, model.key, model.value, model.output))
    for b in range(len(tokens)):
        x = [e[int(z)] for z in tokens[b]]
        h = x[-1].clone()
        for head in range(heads):
            rows = slice(head * head_dim, (head + 1) * head_dim)
            query = q[rows] @ x[-1]
            scores = [float((k[rows] @ xt) @ query) / math.sqrt(head_dim) for xt in x]
            weights = np.exp(np.array(scores) - max(scores))
            weights /= weights.sum()
            mixed = sum(float(wt) * (v[rows] @ xt) for wt, xt in zip(weights, x))
            h = h + o[:, rows] @ mixed
        if width:
            h = h + model.down.detach().double() @ torch.relu(model.up.detach().double() @ h)
        torch.testing.assert_close(logits[b], u @ h, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("width", [0, 5])
def test_transformer_gradients_match_the_per_head_form_by_autograd(width):
    """The regrouped products of `hidden` give the gradients of the class docstring's per-head form (an einsum
    over the head coordinates, in float64) to float32 rounding."""
    task = factual_task(4, 3, 2, noise=3, length=5, seed=1)
    embeddings = factual_embeddings(task, 8, seed=1)
    heads, head_dim = 3, 2
    model = FactualTransformer(embeddings, heads, head_dim, width, generator(4, 5))
    tokens, targets = task.sample(generator(6), 2)
    torch.nn.functional.cross_entropy(model(tokens), targets).backward()
    weights = {name: p.detach().double().requires_grad_() for name, p in model.named_parameters()}
    x = embeddings.tokens.double()[tokens]
    batch, length, d = x.shape
    query = (x[:, -1] @ weights["query"].T).view(batch, heads, head_dim)
    keys = (x @ weights["key"].T).view(batch, length, heads, head_dim)
    values = (x @ weights["value"].T).view(batch, length, heads, head_dim)
    attention = torch.softmax(torch.einsum("blhk,bhk->bhl", keys, query) / math.sqrt(head_dim), dim=-1)
    h = x[:, -1] + torch.einsum("bhl,blhk->bhk", attention, values).reshape(batch, -1) @ weights["output"].T
    if width:
        h = h + torch.relu(h @ weights["up"].T) @ weights["down"].T
    torch.nn.functional.cross_entropy(h @ embeddings.outputs.double().T, targets).backward()
    for name, parameter in model.named_parameters():
        torch.testing.assert_close(parameter.grad.double(), weights[name].grad, rtol=1e-4, atol=1e-6)


def test_grid_points_follow_the_attention_sizing_rule():
    block = dict(TINY, attention_mlp=dict(TINY["attention_mlp"], sizes=[3, 10], widths=[1, 2]))
    points = grid_points(block, "attention_mlp")
    assert [(p["subjects"], p["heads"], p["width"]) for p in points] == [(3, 2, 1), (3, 2, 2), (10, 5, 1), (10, 5, 2)]
    assert all(p["relations"] == p["subjects"] for p in points)
    with pytest.raises(ValueError):
        grid_points(block, "mlp_only")


def test_linear_logits_match_a_hand_loop():
    task = factual_task(3, 2, 2, noise=3, length=5, seed=4)
    tokens, _ = task.sample(generator(5), 2)
    counts = token_counts(task, tokens)
    rng = np.random.default_rng(0)
    w_kq = torch.from_numpy(rng.normal(size=task.vocabulary - 1))
    w_ov = torch.from_numpy(rng.normal(size=(task.answer_count, task.vocabulary - 1)))
    logits = linear_logits(counts, w_kq, w_ov, task.length)
    for b in range(len(tokens)):
        for a in range(task.answer_count):
            hand = sum(float(w_kq[int(z)] * w_ov[a, int(z)]) for z in tokens[b, :task.length]) / task.length
            assert float(logits[b, a]) == pytest.approx(hand, abs=1e-12)


def test_divergences_match_direct_formulas_on_a_hand_made_prediction():
    p = torch.tensor([[0.5, 0.2, 0.2, 0.1], [0.1, 0.1, 0.4, 0.4], [0.25, 0.25, 0.25, 0.25]], dtype=torch.float64)
    targets, relations = torch.tensor([0, 3, 1]), torch.tensor([0, 1, 0])  # A = 2: A_0 = {0, 1}, A_1 = {2, 3}
    kl_relation, kl_fact, accuracy = divergences(p.log(), targets, relations, 2)
    direct_relation = [0.5 * math.log(0.5 / 0.5) + 0.5 * math.log(0.5 / 0.2),
                       0.5 * math.log(0.5 / 0.4) * 2, 2 * 0.5 * math.log(0.5 / 0.25)]
    assert kl_relation == pytest.approx(np.mean(direct_relation), abs=1e-12)
    assert kl_fact == pytest.approx(np.mean([-math.log(0.5), -math.log(0.4), -math.log(0.25)]), abs=1e-12)
    assert accuracy == pytest.approx(1 / 3)  # row 0 right, row 1 a tie resolved to 2 ≠ 3, row 2 a tie resolved to 0 ≠ 1


def test_closed_form_gradients_match_autograd():
    task = factual_task(4, 2, 3, noise=3, length=5, seed=6)
    tokens, targets = task.sample(generator(7), 3)
    counts = token_counts(task, tokens)
    rng = np.random.default_rng(1)
    w_kq = torch.from_numpy(rng.normal(size=task.vocabulary - 1)).requires_grad_()
    w_ov = torch.from_numpy(rng.normal(size=(task.answer_count, task.vocabulary - 1))).requires_grad_()
    loss, grad_kq, grad_ov = gradients(counts, targets, w_kq.detach(), w_ov.detach(), task.length)
    reference = torch.nn.functional.cross_entropy(linear_logits(counts, w_kq, w_ov, task.length), targets)
    reference.backward()
    assert float(loss) == pytest.approx(float(reference.detach()), abs=1e-12)
    torch.testing.assert_close(grad_kq, w_kq.grad, rtol=1e-10, atol=1e-12)
    torch.testing.assert_close(grad_ov, w_ov.grad, rtol=1e-10, atol=1e-12)


def test_dynamics_start_uniform_are_deterministic_and_lower_the_loss():
    curves = dynamics(DYNAMICS, 0)
    assert list(curves.columns) == DYNAMICS_COLUMNS and list(curves["step"]) == [0, 20, 40, 60]
    first = curves.iloc[0]
    assert first["kl_fact"] == pytest.approx(math.log(2 * 3)) and first["kl_relation"] == pytest.approx(math.log(2))
    assert curves["loss"].is_monotonic_decreasing
    pd.testing.assert_frame_equal(curves, dynamics(DYNAMICS, 0))
    assert not curves.equals(dynamics(DYNAMICS, 1))


def test_descents_stopped_at_every_step_and_resumed_give_the_uninterrupted_curves_bit_for_bit(tmp_path):
    """Two seeds of 60 steps, stopped by a spent time budget before every step but the first (within a seed and at
    the next seed's start), each time continued by a new start: the curves equal those of `dynamics` seed by seed,
    bit for bit."""
    block = {**DYNAMICS, "seeds": [0, 1]}
    resumed, stops = stopped_at_every_save_point(lambda checkpoint: dynamics_curves(block, checkpoint=checkpoint),
                                                 tmp_path / "dynamics.checkpoint")
    assert stops == list(range(1, 120))
    reference = pd.concat([dynamics(block, 0), dynamics(block, 1)], ignore_index=True)
    pd.testing.assert_frame_equal(resumed, reference, check_exact=True)
    pd.testing.assert_frame_equal(dynamics_curves(block), reference, check_exact=True)

def test_tiny_grids_memorise_every_fact_and_are_deterministic():
    for model in ("attention_mlp", "attention_only"):
        grid = recall_grid(TINY, model, 0)
        assert list(grid.columns) == COLUMNS and len(grid) == 1
        assert float(grid["recall"].iloc[0]) == 1.0 and float(grid["loss"].iloc[0]) < 0.1
        assert int(grid["facts"].iloc[0]) == int(grid["subjects"].iloc[0] * grid["relations"].iloc[0])
        if model == "attention_mlp":
            pd.testing.assert_frame_equal(grid, recall_grid(TINY, model, 0))
    needed = needed_sizes(grid, 0.99)
    assert needed["axis"].iloc[0] == "d" and needed["reason"].iloc[0] == ALWAYS and np.isnan(needed["needed"].iloc[0])
    two_points = pd.concat([grid.assign(d=12, parameters=grid["parameters"] / 2, recall=0.5), grid])
    needed = needed_sizes(two_points, 0.75)
    assert needed["reason"].iloc[0] == "" and float(needed["needed"].iloc[0]) == pytest.approx(math.sqrt(12 * 24))


def test_a_grid_stopped_at_every_step_and_resumed_gives_the_uninterrupted_grid_bit_for_bit(tmp_path):
    """Two grid points of 6 steps, stopped by a spent time budget before every step but the first (within a point
    and at the next point's start), each time continued by a new start: the rows (recall, final loss) equal a grid
    that never stopped, bit for bit. The noise generator is part of the state: without it the continued steps
    would draw other noise."""
    block = {**TINY, "attention_only": {**TINY["attention_only"], "ds": [8, 12]}, "training": {**TINY["training"], "steps": 6}}
    resumed, stops = stopped_at_every_save_point(lambda checkpoint: recall_grid(block, "attention_only", 0, checkpoint=checkpoint),
                                                 tmp_path / "grid.checkpoint")
    assert stops == list(range(1, 12))
    pd.testing.assert_frame_equal(resumed, recall_grid(block, "attention_only", 0), check_exact=True)

def synthetic_grid() -> pd.DataFrame:
    """Attention + MLP at S = R = 4, 6, 8 (recall crossing ½ at width 2·S·R/d·2^(∓0.1)), and attention only at
    R + A_max = 5, 7, 10 (crossing at d ≈ R + A_max); parameters 4·H·d·d_h + 2·m·d."""
    rows = []
    for index, size in enumerate((4, 6, 8)):
        d, heads, head_dim = 16, 2, size
        for width in (1, 2, 4, 8, 16):
            recall = min(1.0, 0.25 * width * d / (size * size) * 2 ** (0.1 * (-1) ** index))
            rows.append({"model": "attention_mlp", "subjects": size, "relations": size, "answers": 4, "facts": size * size,
                         "d": d, "heads": heads, "head_dim": head_dim, "width": width,
                         "parameters": 4 * heads * d * head_dim + 2 * width * d, "seed": 0, "recall": recall,
                         "loss": 0.0, "steps": 1})
    for relations, answers in ((2, 3), (3, 4), (4, 6)):
        for d in (2, 4, 8, 16, 32):
            rows.append({"model": "attention_only", "subjects": 8, "relations": relations, "answers": answers,
                         "facts": 8 * relations, "d": d, "heads": 2, "head_dim": 4, "width": 0,
                         "parameters": 4 * 2 * d * 4, "seed": 0, "recall": min(1.0, 0.5 * d / (relations + answers)),
                         "loss": 0.0, "steps": 1})
    return pd.DataFrame(rows, columns=COLUMNS)


def test_the_figure_prints_the_ledgers_slopes_by_claim_id():
    """Panels (a) and (b) draw the slopes the claims ledger measured on the figure's own tables, (c) prints the third
    factual slope; the figure fits none of its own."""
    import matplotlib

    matplotlib.use("Agg")
    from pathlib import Path

    from matplotlib import pyplot as plt

    from icdenoise.pipeline.config import load_yaml
    from icdenoise.records.claims import ledger
    from icdenoise.records.figures import ledger_text
    from icdenoise.studies.memory.claims import CLAIMS
    from icdenoise.studies.memory.plots import factual as drawing

    grid = synthetic_grid()
    tables = {"factual": grid, "factual_needed": needed_sizes(grid, 0.5)}
    specs = load_yaml(Path(__file__).resolve().parents[4] / "config" / "config.yaml")["memory"]["claims"]
    claims = ("factual_parameters_scale_with_facts", "factual_mlp_storage_scales_with_facts", "factual_attention_only_d")
    tables["claims"] = ledger(CLAIMS, tables, {claim: specs[claim] for claim in claims})
    assert np.isfinite(tables["claims"]["ours_mean"]).all()
    figure = drawing.render(tables)
    for ax, claim in zip(figure.axes[:3], claims):  # the panels, before the colour bar
        texts = [text.get_text() for text in ax.get_legend().get_texts()]
        assert any(text.endswith(ledger_text(tables["claims"], claim)) for text in texts), (claim, texts)
        assert not any("free slope" in text for text in texts)
    plt.close(figure)
