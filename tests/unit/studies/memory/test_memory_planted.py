"""Slide 24's planted-token task and three steps: the sampler, the model against an explicit loop, the chunked
gradient against a one-shot one, the normalised step, the first step against slide 22's closed form, the
theorem's threshold and slopes, the boundary interpolation, the slope fit, and determinism."""

import math

import numpy as np
import pandas as pd
import pytest
import torch
from torch import nn

from icdenoise.maths.thresholds import ALWAYS, NEVER
from icdenoise.studies.memory.embeddings import generator
from icdenoise.studies.memory.planted import (
    GRID_COLUMNS,
    TRIGGER,
    chunked_gradient,
    embeddings,
    grid_points,
    labelled_grid_points,
    logits_of,
    normalised_step,
    planted_samples,
    target_map,
    three_steps,
    threshold_grid,
)
from icdenoise.studies.memory.planted_boundary import (
    above_floor,
    boundary_slope,
    slope_above_floor,
    smallest_length_above_floor,
    success_boundary,
    t_term,
    theory_d,
    theory_slope,
)

TINY = {"vocabulary": 12, "seed": 0, "ds": [8, 16], "lengths": [5, 8], "samples": 64, "samples_list": [32, 64],
        "samples_length": 5, "test_samples": 64, "step_ov": 1.0, "kq_scale": 2.0, "step_ov3": 100.0,
        "success_threshold": 0.9}


def tiny_problem(vocabulary=10, length=7, d=6, count=9, seed=3):
    permutation = target_map({"vocabulary": vocabulary, "seed": seed})
    tokens, planted, targets = planted_samples(generator(seed, 99), count, vocabulary, length, permutation)
    tables = embeddings(seed, vocabulary, d)
    rng = generator(seed, 98)
    weights = {"wov": torch.randn(d, d, generator=rng), "wkq": torch.randn(d, d, generator=rng)}
    return tokens, planted, targets, tables, weights, permutation


def test_sampler_plants_the_trigger_before_the_relevant_token():
    vocabulary, length, count = 9, 11, 20000
    permutation = target_map({"vocabulary": vocabulary, "seed": 5})
    assert sorted(permutation.tolist()) == list(range(vocabulary))
    tokens, planted, targets = planted_samples(generator(1, 2), count, vocabulary, length, permutation)
    rows = torch.arange(count)
    assert tokens.shape == (count, length)
    assert torch.all(tokens[:, -1] == TRIGGER) and torch.all(tokens[rows, planted - 1] == TRIGGER)
    assert torch.all((tokens == TRIGGER).sum(dim=1) == 2)  # q only at t* − 1 and at the query
    assert int(planted.min()) == 1 and int(planted.max()) == length - 2  # slide 24's t* ∈ 2..T−1, 0-based
    assert torch.equal(targets, torch.tensor([int(permutation[tokens[b, planted[b]]]) for b in range(count)]))
    # t* uniform over its T − 2 values, and the free context tokens uniform over the N − 1 non-triggers
    positions = np.bincount(planted.numpy(), minlength=length)[1:length - 1] / count
    assert np.max(np.abs(positions - 1 / (length - 2))) < 0.01
    free = torch.ones(count, length, dtype=torch.bool)
    free[rows, planted - 1] = False
    free[:, -1] = False
    frequencies = np.bincount(tokens[free].numpy(), minlength=vocabulary) / int(free.sum())
    assert frequencies[TRIGGER] == 0
    assert np.max(np.abs(np.delete(frequencies, TRIGGER) - 1 / (vocabulary - 1))) < 0.005
    with pytest.raises(ValueError, match="T ≥ 3"):
        planted_samples(generator(0), 2, vocabulary, 2, permutation)


def test_logits_match_an_explicit_loop():
    tokens, _, _, tables, weights, _ = tiny_problem()
    tokens_table, previous_table, outputs = tables
    logits = logits_of(tokens, tables, weights["wov"], weights["wkq"])
    count, length = tokens.shape
    for b in range(count):
        xs = []
        for t in range(length):
            x = tokens_table[tokens[b, t]].clone()
            if t > 0:
                x = x + previous_table[tokens[b, t - 1]]
            xs.append(x)
        scores = torch.stack([xs[t] @ weights["wkq"] @ xs[-1] for t in range(length)])
        beta = torch.exp(scores - scores.max())
        beta = beta / beta.sum()
        mixed = sum(beta[t] * xs[t] for t in range(length))
        expected = torch.stack([outputs[k] @ weights["wov"] @ mixed for k in range(outputs.shape[0])])
        torch.testing.assert_close(logits[b], expected, rtol=1e-4, atol=1e-5)


def test_gradients_match_the_dense_inputs_form_by_autograd():
    """The gathered scores and scattered mix give the gradients of the form with every x_t formed, (B, T, d),
    in float64."""
    tokens, _, targets, tables, weights, _ = tiny_problem(count=13)
    weights = {key: (value * 0.3).requires_grad_(True) for key, value in weights.items()}
    nn.functional.cross_entropy(logits_of(tokens, tables, weights["wov"], weights["wkq"]), targets).backward()
    dense = {key: value.detach().double().requires_grad_(True) for key, value in weights.items()}
    tokens_table, previous_table, outputs = (table.double() for table in tables)
    inputs = tokens_table[tokens]
    inputs[:, 1:] += previous_table[tokens[:, :-1]]
    beta = torch.softmax(torch.einsum("btd,bd->bt", inputs, inputs[:, -1] @ dense["wkq"].T), dim=1)
    logits = torch.einsum("bt,btd->bd", beta, inputs) @ dense["wov"].T @ outputs.T
    nn.functional.cross_entropy(logits, targets).backward()
    for key in weights:
        torch.testing.assert_close(weights[key].grad.double(), dense[key].grad, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("name", ["wov", "wkq"])
def test_chunked_gradient_matches_a_one_shot_gradient(name):
    tokens, _, targets, tables, weights, _ = tiny_problem(count=23)
    weights = {key: value * 0.3 for key, value in weights.items()}
    weight = weights[name].clone().requires_grad_(True)
    held = dict(weights, **{name: weight})
    logits = logits_of(tokens, tables, held["wov"], held["wkq"])
    (expected,) = torch.autograd.grad(nn.functional.cross_entropy(logits, targets), [weight])
    for chunk in (1, 5, 23, 100):
        torch.testing.assert_close(chunked_gradient(name, weights, tables, tokens, targets, chunk), expected,
                                   rtol=1e-4, atol=1e-6)


def test_normalised_step_moves_by_its_size_against_the_gradient():
    rng = generator(4)
    weight, gradient = torch.randn(5, 5, generator=rng), torch.randn(5, 5, generator=rng)
    moved = normalised_step(weight, gradient, 2.5)
    change = moved - weight
    assert math.isclose(float(change.norm()), 2.5, rel_tol=1e-5)
    cosine = float((change * gradient).sum() / (change.norm() * gradient.norm()))
    assert math.isclose(cosine, -1.0, rel_tol=1e-6)
    assert torch.equal(normalised_step(weight, torch.zeros(5, 5), 2.5), weight)


def test_first_step_is_slide_22s_closed_form_at_uniform_attention():
    """At W_OV = W_KQ = 0 the attention is uniform and p(k|x) = 1/N, so slide 22's lemma gives
    ∇_{W_OV} L = (1/n) Σ_i Σ_k (1/N − 1{y_i = k}) u_k h_iᵀ with h_i the mean input of sample i; and the
    W_KQ gradient vanishes (the logits do not depend on W_KQ while W_OV = 0)."""
    tokens, _, targets, tables, weights, _ = tiny_problem(count=17)
    zero = {key: torch.zeros_like(value) for key, value in weights.items()}
    gradient = chunked_gradient("wov", zero, tables, tokens, targets, 4)
    vocabulary = tables[2].shape[0]
    inputs = tables[0][tokens].double()
    inputs[:, 1:] += tables[1][tokens[:, :-1]].double()
    means = inputs.mean(dim=1)
    outputs = tables[2].double()
    expected = torch.zeros_like(gradient, dtype=torch.float64)
    for i in range(len(tokens)):
        for k in range(vocabulary):
            expected += (1 / vocabulary - float(targets[i] == k)) * torch.outer(outputs[k], means[i])
    torch.testing.assert_close(gradient.double(), expected / len(tokens), rtol=1e-4, atol=1e-6)
    assert torch.count_nonzero(chunked_gradient("wkq", zero, tables, tokens, targets, 4)) == 0


def test_theory_threshold_and_its_slopes():
    assert math.isclose(float(theory_d(64, 32, 1)), 32 ** 2 / 64)  # n ≤ N²/T: the min is 1
    assert math.isclose(float(theory_d(64, 32, 4096)), 32 ** 2 / 64 * (64 ** 2 / (32 * 4096)) ** (2 / 3))
    assert math.isclose(theory_slope(1024, [8, 16, 32], 64), 2.0)
    assert math.isclose(theory_slope(64, [8, 16, 32], 4096), 4 / 3)
    assert 4 / 3 < theory_slope(64, [4, 64, 1024], 16) < 2  # across the kink at T = N²/n = 256


def test_boundary_interpolates_in_log_d():
    table = pd.DataFrame({
        "vocabulary": 16, "samples": 100, "seed": 0,
        "length": [4] * 4 + [8] * 4 + [16] * 4 + [32] * 4,
        "d": [16, 32, 64, 128] * 4,
        "recall": [0.2, 0.5, 0.95, 1.0,   # crosses 0.9 between 32 and 64, 0.4/0.45 of the way in log d
                   0.1, 0.2, 0.7, 0.9,    # reaches 0.9 exactly at 128
                   0.0, 0.1, 0.2, 0.3,    # never
                   0.95, 0.99, 1.0, 1.0],  # always
    }).sample(frac=1.0, random_state=0)  # the order of the rows must not matter
    boundary = success_boundary(table, 0.9).set_index("length")
    assert math.isclose(boundary.loc[4, "d_star"], 32 * 2 ** (0.4 / 0.45))
    assert math.isclose(boundary.loc[8, "d_star"], 128.0)
    assert np.isnan(boundary.loc[16, "d_star"]) and boundary.loc[16, "reason"] == NEVER
    assert np.isnan(boundary.loc[32, "d_star"]) and boundary.loc[32, "reason"] == ALWAYS
    assert boundary.loc[4, "reason"] == ""
    assert math.isclose(boundary.loc[8, "theory_d"], float(theory_d(16, 8, 100)))


def test_boundary_slope_recovers_a_power_law():
    lengths = np.array([8, 16, 32, 64, 8, 16, 32, 64])
    boundary = pd.DataFrame({"vocabulary": 16, "length": lengths, "samples": 100, "seed": [0] * 4 + [1] * 4,
                             "d_star": 3.0 * lengths ** 1.5, "reason": "", "theory_d": 1.0})
    extra = pd.DataFrame({"vocabulary": 16, "length": [8, 8], "samples": [50, 400], "seed": 0, "d_star": [1.0, 2.0],
                          "reason": "", "theory_d": 1.0})
    slope, low, high = boundary_slope(pd.concat([boundary, extra]))
    assert math.isclose(slope, 1.5) and low <= 1.5 <= high
    assert all(np.isnan(boundary_slope(boundary.assign(d_star=np.nan))))


def test_grid_columns_points_and_determinism():
    points = grid_points(TINY)
    assert len(points) == len(set(points)) == 2 * 2 + 2  # (d, 5, 64) is in both parts
    first = threshold_grid(TINY, 7)
    assert list(first.columns) == list(GRID_COLUMNS) and len(first) == len(points)
    assert first["grid"].tolist() == [grid for *_, grid in labelled_grid_points(TINY)]
    pd.testing.assert_frame_equal(first, threshold_grid(TINY, 7))
    assert first["recall"].between(0, 1).all() and first["attention_planted"].between(0, 1).all()
    assert (first["success"] == (first["recall"] >= 0.9)).all()
    assert three_steps(TINY, 8, 5, 64, 7) != three_steps(TINY, 8, 5, 64, 8)


def test_the_t_term_and_the_floor_follow_the_formula():
    """Slide 24's T-term (T²/N)·(N²/(T n))^{2/3} is T^{4/3} N^{1/3} n^{−2/3}, the threshold wherever N²/(T n) < 1; a
    length is above the floor where that holds and the T-term is ≥ factor·√N, from T = factor^{3/4} N^{1/8} √n."""
    for vocabulary, length, samples in ((64, 160, 1024), (16, 36, 64), (100, 7, 3)):
        assert math.isclose(float(t_term(vocabulary, length, samples)),
                            length ** (4 / 3) * vocabulary ** (1 / 3) * samples ** (-2 / 3))
    assert math.isclose(float(t_term(64, 160, 1024)), float(theory_d(64, 160, 1024)))  # N²/(T n) < 1: the same
    assert float(t_term(64, 8, 64)) > float(theory_d(64, 8, 64))  # N²/(T n) = 8: the min picks 1, not the T-term
    smallest = smallest_length_above_floor(64, 1024, 4.0)
    assert math.isclose(smallest, 4 ** 0.75 * 64 ** 0.125 * 32) and 152 < smallest < 153
    assert math.isclose(float(t_term(64, smallest, 1024)), 4 * 8)
    lengths = np.array([113, 152, 153, 160, 226, 320, 452, 640])
    assert above_floor(64, lengths, 1024, 4.0).tolist() == [False, False, True, True, True, True, True, True]
    assert not above_floor(64, 3000, 1, 4.0)  # far above 4√N, but N²/(T n) ≥ 1: the 2 regime, not read
    assert smallest_length_above_floor(64, 1, 4.0) == 64 ** 2  # there the regime itself needs T > N²/n


def _regime_boundary(lengths, d_star, samples=1024, seeds=(0, 1)):
    return pd.DataFrame([{"vocabulary": 64, "length": length, "samples": samples, "seed": seed, "d_star": value * (1 + 0.01 * seed),
                          "reason": "" if np.isfinite(value) else NEVER, "theory_d": float(theory_d(64, length, samples)),
                          "threshold": 0.9} for length, value in zip(lengths, d_star) for seed in seeds])


def test_the_slope_above_the_floor_reads_only_the_lengths_that_clear_it():
    """d* flat (a floor) below the floor's lengths and ∝ T^{4/3} above: the slope over the lengths above is 4/3,
    while a fit over every length would not be; fewer than 3 crossing lengths above give NaN."""
    lengths = [64, 113, 160, 226, 320, 452, 640]
    rising = 3.0 * np.array([160, 226, 320, 452, 640]) ** (4 / 3)
    d_star = [rising[0], rising[0], *rising]  # the floor at T = 64, 113 is d* of T = 160
    boundary = pd.concat([_regime_boundary(lengths, d_star), _regime_boundary([160, 320], [1.0, 1.0], samples=4096)])
    fit = slope_above_floor(boundary, 1024, 4.0)
    assert fit["qualifying"] == [160, 226, 320, 452, 640] and fit["crossing"] == fit["qualifying"] and fit["points"] == 10
    assert math.isclose(fit["slope"], 4 / 3, rel_tol=1e-9) and fit["ci_low"] <= 4 / 3 <= fit["ci_high"]
    assert boundary_slope(boundary[boundary["samples"] == 1024], 1024)[0] < 1.0  # the floor's lengths bend the plain fit
    off = slope_above_floor(_regime_boundary(lengths, [*d_star[:4], np.nan, np.nan, np.nan]), 1024, 4.0)
    assert off["crossing"] == [160, 226] and np.isnan(off["slope"])
    assert slope_above_floor(boundary, 1024, 20.0)["qualifying"] == [640]  # 27√N at T = 640 only


def test_the_regime_grid_is_labelled_and_keeps_its_own_points():
    block = {**TINY, "regime": {"samples": 16, "lengths": [9, 5], "ds": [16, 24]}}
    points = labelled_grid_points(block)
    assert [point[:3] for point in points] == grid_points(block)
    assert [point for point in points if point[3] == "regime"] == [(16, 9, 16, "regime"), (24, 9, 16, "regime"),
                                                                   (16, 5, 16, "regime"), (24, 5, 16, "regime")]
    assert {point[3] for point in points} == {"lengths", "samples", "regime"}
    shared = labelled_grid_points({**TINY, "regime": {"samples": 32, "lengths": [5], "ds": [8, 32]}})
    assert (8, 5, 32, "samples") in shared and (32, 5, 32, "regime") in shared  # a shared point is computed once
    assert len(shared) == len(set(point[:3] for point in shared))
    assert labelled_grid_points({**TINY, "regime": {"samples": 16, "lengths": [], "ds": []}}) == labelled_grid_points(TINY)


def _planted_frames(with_regime: bool):
    """The planted and boundary tables of a (d, T) grid at n = 4096 (d* ∝ T) and, optionally, a larger regime grid
    at n = 1024 (d* ∝ T^{4/3} above the floor)."""
    grid_lengths, regime_lengths = [16, 32, 64], [113, 160, 226, 320, 452, 640]
    rows = [{"d": d, "length": length, "samples": 4096, "grid": "lengths"} for length in grid_lengths for d in (32, 64)]
    boundary = [_regime_boundary(grid_lengths, 2.0 * np.array(grid_lengths), samples=4096)]
    if with_regime:
        rows += [{"d": d, "length": length, "samples": 1024, "grid": "regime"} for length in regime_lengths for d in (32, 64)]
        boundary.append(_regime_boundary(regime_lengths, [130.0, *(3.0 * np.array(regime_lengths[1:]) ** (4 / 3))]))
    return {"planted": pd.DataFrame(rows), "planted_boundary": pd.concat(boundary)}


def test_the_claims_read_their_own_grids():
    """planted_boundary_slope_in_t reads the (d, T) grid whatever the regime grid adds (more rows at another n);
    the regime claim reads the regime's lengths above the floor, and its rules say why it cannot decide without
    them."""
    from icdenoise.studies.memory.claims import CLAIMS

    old, new = CLAIMS["planted_boundary_slope_in_t"], CLAIMS["planted_boundary_slope_in_t_above_floor"]
    spec = {"floor_factor": 4.0}
    without, with_regime = _planted_frames(False), _planted_frames(True)
    assert old.measure(with_regime, {}).values[0] == pytest.approx(1.0) == old.measure(without, {}).values[0]
    measured = new.measure(with_regime, spec)
    assert measured.values[0] == pytest.approx(4 / 3) and "T = 160, 226, 320, 452, 640, n = 1024" in measured.method
    assert new.rules["too_few_above_floor"](with_regime, spec) is None and new.rules["off_grid"](with_regime, spec) is None
    assert np.isnan(new.measure(without, spec).values[0])
    assert "no regime grid" in new.rules["too_few_above_floor"](without, spec)
    assert new.rules["off_grid"](without, spec) is None
    strict = {"floor_factor": 20.0}  # only T = 640 clears 20√N
    assert np.isnan(new.measure(with_regime, strict).values[0])
    assert "1 length at n = 1024 above 20·√N with N²/(Tn) < 1 (640)" in new.rules["too_few_above_floor"](with_regime, strict)
    off = _planted_frames(True)
    crossing = off["planted_boundary"]
    crossing.loc[crossing["length"].isin([320, 452, 640]) & (crossing["samples"] == 1024), ["d_star", "reason"]] = [np.nan, NEVER]
    assert np.isnan(new.measure(off, spec).values[0]) and new.rules["too_few_above_floor"](off, spec) is None
    assert "only 2 of the 5 lengths" in new.rules["off_grid"](off, spec) and "T = 640, seed 1" in new.rules["off_grid"](off, spec)


def test_the_config_keeps_the_regime_apart_and_names_the_floor_factor():
    from icdenoise.studies.memory.config import planted_regime_problems

    planted = {"samples": 4096, "regime": {"samples": 1024, "lengths": [160, 226, 320], "ds": [32, 64]}}
    claims = {"planted_boundary_slope_in_t_above_floor": {"floor_factor": 4.0}, "gamma_mean": {}}
    assert planted_regime_problems(planted, claims) == []
    clash = {**planted, "regime": {**planted["regime"], "samples": 4096, "ds": [32]}}
    problems = planted_regime_problems(clash, {"planted_boundary_slope_in_t_above_floor": {}, "gamma_mean": {"floor_factor": 2.0}})
    assert len(problems) == 4
    assert "regime.samples: 4096" in problems[0] and "regime.ds" in problems[1]
    assert "floor_factor: missing" in problems[2] and "gamma_mean.floor_factor" in problems[3]
    assert planted_regime_problems({**planted, "regime": {"samples": 4096, "lengths": [], "ds": []}}, claims) == []


PLANTED_CLAIMS = ("planted_boundary_slope_in_t", "planted_boundary_slope_in_t_above_floor")


def with_ledger(tables: dict, floor_factor: float) -> dict:
    """`tables` and the claims ledger of the planted claims measured on them, under config/config.yaml's tests."""
    from pathlib import Path

    from icdenoise.pipeline.config import load_yaml
    from icdenoise.records.claims import ledger
    from icdenoise.studies.memory.claims import CLAIMS

    specs = load_yaml(Path(__file__).resolve().parents[4] / "config" / "config.yaml")["memory"]["claims"]
    specs = {claim: {**specs[claim], "floor_factor": floor_factor} for claim in PLANTED_CLAIMS}
    return {**tables, "claims": ledger(CLAIMS, tables, specs)}


def legend_texts(ax) -> list[str]:
    return [text.get_text() for text in ax.get_legend().get_texts()]


def test_the_figure_draws_the_regime_grid_apart_and_the_ledgers_slopes():
    """Panels (a)-(d) read the (d, T) and n grids as before; (e, f) the regime grid, with the lengths above the
    floor (by the table's theory_d) filled; without a regime grid (e, f) say so. Panels (c) and (f) print the
    slopes the claims ledger reports, by claim id, and (d), whose slope in n no claim reports, prints none."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    from icdenoise.records.figures import ledger_text
    from icdenoise.studies.memory.plots import planted as drawing

    block = {**TINY, "seeds": [0], "regime": {"samples": 16, "lengths": [9, 40], "ds": [8, 16]}}
    grid = threshold_grid(block, 0)
    tables = with_ledger({"planted": grid, "planted_boundary": success_boundary(grid, 0.9)}, 1.0)
    figure = drawing.render(tables, floor_factor=1.0)
    assert len(figure.axes) == 6
    assert figure.axes[4].get_title().startswith("(e) regime grid") and "n = 16" in figure.axes[5].get_title()
    assert "n = 64" in figure.axes[0].get_title()  # the (d, T) grid's n, not the regime's
    for ax, claim in ((figure.axes[2], PLANTED_CLAIMS[0]), (figure.axes[5], PLANTED_CLAIMS[1])):
        assert "slope, " + ledger_text(tables["claims"], claim) in legend_texts(ax)
    assert not any("slope," in text or "fitted slope" in text for text in legend_texts(figure.axes[3]))
    plt.close(figure)
    plain = threshold_grid(TINY, 0)
    figure = drawing.render(with_ledger({"planted": plain, "planted_boundary": success_boundary(plain, 0.9)}, 4.0))
    assert "no regime grid" in figure.axes[4].texts[0].get_text()
    plt.close(figure)
