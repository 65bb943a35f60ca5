"""The Zipf scaling-law study (Bietti 2025 slides, "Setting" and "Theorem (Cabannes, Dohmatob, and B.,
2024a, informal)"): each closed form and fast path against an independent computation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch
from scipy import stats

from icdenoise.studies.memory import zipf

TINY = {"alphas": [1.5, 2.0], "vocabularies": [300, 40], "outputs": 4, "ds": [16, 32], "d_for_n_sweep": 32,
        "n_max": 256, "n_per_octave": 1, "n_for_d_sweep": 100000, "top_k_over_d": [0.25, 2.0],
        "top_k_per_octave": 2, "n_fit_min": 1, "fit_margin": 2, "seed": 5, "seeds": [0, 1]}


def brute_force_error(inputs, outputs, targets, probabilities, q) -> float:
    """Σ_z p(z) 1{argmax_y u_yᵀ W e_z ≠ f*(z)}, with W = Σ_z q(z) u_{f*(z)} e_zᵀ built term by term in float64
    and every token read out in its own loop iteration."""
    e, u = inputs.double(), outputs.double()
    memory = torch.zeros(e.shape[1], e.shape[1], dtype=torch.float64)
    for z in range(e.shape[0]):
        memory += float(q[z]) * torch.outer(u[targets[z]], e[z])
    error = 0.0
    for z in range(e.shape[0]):
        scores = [float(u[y] @ memory @ e[z]) for y in range(u.shape[0])]
        if int(np.argmax(scores)) != int(targets[z]):
            error += probabilities[z]
    return error


def test_zipf_probabilities_are_the_normalised_power_law():
    p = zipf.zipf_probabilities(1000, 1.5)
    assert p.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.all(np.diff(p) < 0)
    np.testing.assert_allclose(p, stats.zipfian(1.5, 1000).pmf(np.arange(1, 1001)), rtol=1e-10)
    np.testing.assert_allclose(p[[1, 9, 99]] / p[0], [2**-1.5, 10**-1.5, 100**-1.5], rtol=1e-12)


@pytest.mark.parametrize("alpha, n", [(1.5, 7), (2.0, 60)])
def test_expected_unseen_mass_and_seen_tokens_match_monte_carlo(alpha, n):
    p = zipf.zipf_probabilities(200, alpha)
    rng = np.random.default_rng(11)
    draws = rng.choice(p.size, size=(20000, n), p=p)
    seen = np.zeros((draws.shape[0], p.size), dtype=bool)
    seen[np.arange(draws.shape[0])[:, None], draws] = True
    unseen_mass = (~seen * p).sum(axis=1)
    distinct = seen.sum(axis=1)
    for closed_form, samples in ((zipf.expected_unseen_mass(p, n), unseen_mass), (zipf.expected_seen_tokens(p, n), distinct)):
        assert abs(closed_form - samples.mean()) < 4 * samples.std() / np.sqrt(samples.size)
    assert zipf.infinite_memory_error(p, n, 4) == pytest.approx(0.75 * zipf.expected_unseen_mass(p, n), rel=1e-15)


def test_nested_counts_are_one_stream_of_multinomial_draws():
    p = zipf.zipf_probabilities(50, 1.5)
    sizes = [3, 10, 40]
    counts = zipf.nested_counts(p, sizes, np.random.default_rng(0))
    assert counts.shape == (3, 50)
    np.testing.assert_array_equal(counts.sum(axis=1), sizes)
    assert np.all(np.diff(counts, axis=0) >= 0)
    many = np.stack([zipf.nested_counts(p, sizes, np.random.default_rng(seed))[-1] for seed in range(3000)])
    standard_error = np.sqrt(40 * p * (1 - p) / many.shape[0])
    assert np.all(np.abs(many.mean(axis=0) - 40 * p) < 5 * standard_error + 1e-12)
    with pytest.raises(ValueError, match="increasing"):
        zipf.nested_counts(p, [10, 10], np.random.default_rng(0))


def test_each_estimator_weight_against_a_direct_count():
    rng = np.random.default_rng(3)
    samples = rng.integers(0, 30, size=80)
    counts = np.bincount(samples, minlength=30)
    direct_counts = np.array([sum(1 for sample in samples if sample == z) for z in range(30)])
    direct_seen = np.array([1.0 if z in set(samples.tolist()) else 0.0 for z in range(30)])
    direct_threshold = np.array([1.0 if direct_counts[z] >= 4 else 0.0 for z in range(30)])
    np.testing.assert_allclose(zipf.estimator_weights(counts, "counts"), direct_counts / direct_counts.max())
    np.testing.assert_array_equal(zipf.estimator_weights(counts, "seen"), direct_seen)
    np.testing.assert_array_equal(zipf.estimator_weights(counts, "threshold", 4), direct_threshold)
    with pytest.raises(ValueError, match="s ≥ 1"):
        zipf.estimator_weights(counts, "threshold")
    with pytest.raises(ValueError, match="unknown estimator"):
        zipf.estimator_weights(counts, "oracle")


@pytest.mark.parametrize("capacity", [0, 1, 3, 7, 12, 25, 40])
def test_threshold_rule_is_the_smallest_s_within_capacity(capacity):
    counts = np.random.default_rng(capacity).poisson(3.0, size=30) * np.random.default_rng(1).integers(0, 2, size=30)
    stored = lambda s: int(np.sum(counts >= s))  # noqa: E731
    brute = next(s for s in range(1, counts.max() + 2) if stored(s) <= capacity)
    assert zipf.capacity_threshold(counts, capacity) == brute
    assert stored(brute) <= capacity
    assert brute == 1 or stored(brute - 1) > capacity


def test_exact_error_matches_a_brute_force_loop_over_tokens():
    memory = zipf.RandomMemory.draw(seed=2, draw=0, vocabulary=60, outputs=5, d_max=24)
    p = zipf.zipf_probabilities(60, 1.5)
    counts = zipf.nested_counts(p, [40], np.random.default_rng(4))[0]
    weights = np.stack([zipf.estimator_weights(counts, "counts"), zipf.estimator_weights(counts, "seen"),
                        zipf.estimator_weights(counts, "threshold", 2), (np.arange(60) < 9).astype(float),
                        np.zeros(60)])
    for d, vocabulary in ((24, 60), (10, 60), (10, 35)):
        inputs, outputs, targets = memory.at(d, vocabulary)
        probabilities = zipf.zipf_probabilities(vocabulary, 1.5)
        fast = zipf.recall_errors(inputs, outputs, targets, probabilities, weights[:, :vocabulary])
        brute = [brute_force_error(inputs, outputs, targets, probabilities, q) for q in weights[:, :vocabulary]]
        np.testing.assert_allclose(fast, brute, rtol=1e-12, atol=1e-15)
    assert fast[1] > 0 and fast[0] != fast[1]


def test_the_error_on_stored_tokens_matches_a_brute_force_loop_restricted_to_them():
    memory = zipf.RandomMemory.draw(seed=3, draw=0, vocabulary=50, outputs=4, d_max=12)
    inputs, outputs, targets = memory.at(6, 50)
    p = zipf.zipf_probabilities(50, 1.5)
    counts = zipf.nested_counts(p, [60], np.random.default_rng(7))[0]
    weights = np.stack([zipf.estimator_weights(counts, "seen"), zipf.estimator_weights(counts, "counts"),
                        (np.arange(50) < 20).astype(float)])
    errors, on_stored = zipf.recall_error_parts(inputs, outputs, targets, p, weights)
    for q, error, stored_error in zip(weights, errors, on_stored):
        held = np.where(q > 0, p, 0.0)  # the brute-force error with the unstored tokens' mass set to 0
        assert stored_error == pytest.approx(brute_force_error(inputs, outputs, targets, held, q), rel=1e-12, abs=1e-15)
        assert error == pytest.approx(brute_force_error(inputs, outputs, targets, p, q), rel=1e-12, abs=1e-15)
    assert 0 < on_stored[0] < errors[0]  # d = 6 is crowded: stored tokens err too, and unseen ones add to it
    np.testing.assert_array_equal(zipf.recall_errors(inputs, outputs, targets, p, weights), errors)


def test_exact_error_chunks_agree_with_one_batch(monkeypatch):
    memory = zipf.RandomMemory.draw(seed=2, draw=1, vocabulary=80, outputs=3, d_max=16)
    inputs, outputs, targets = memory.at(16, 80)
    p = zipf.zipf_probabilities(80, 2.0)
    weights = (np.arange(80)[None, :] < np.arange(1, 81, 8)[:, None]).astype(float)
    whole = zipf.recall_errors(inputs, outputs, targets, p, weights)
    monkeypatch.setattr(zipf, "SCORE_FLOATS_PER_CHUNK", 80 * 3 * 2)
    np.testing.assert_array_equal(zipf.recall_errors(inputs, outputs, targets, p, weights), whole)


def test_embeddings_at_a_dimension_are_the_rescaled_leading_coordinates():
    memory = zipf.RandomMemory.draw(seed=9, draw=0, vocabulary=4000, outputs=6, d_max=64)
    inputs, outputs, targets = memory.at(16, 3000)
    assert inputs.shape == (3000, 16) and outputs.shape == (6, 16) and targets.shape == (3000,)
    assert inputs.dtype == torch.float32
    assert float(inputs.var()) == pytest.approx(1 / 16, rel=0.03)
    torch.testing.assert_close(inputs, memory.inputs[:3000, :16] * 2.0)
    assert set(targets.tolist()) == set(range(6))


def test_top_k_grid_and_sample_sizes():
    block = {**TINY, "n_max": 100, "n_per_octave": 2}
    assert zipf.sample_sizes(block) == [1, 2, 3, 4, 6, 8, 11, 16, 23, 32, 45, 64, 91]
    np.testing.assert_array_equal(zipf.top_k_grid(16, 300, TINY), [4, 6, 8, 11, 16, 23, 32])
    np.testing.assert_array_equal(zipf.top_k_grid(32, 40, TINY), [8, 11, 16, 23, 32, 40])


def test_tables_are_reproducible_and_hold_every_row():
    first = zipf.scaling_table(TINY, 1.5)
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64 if previous == torch.float32 else torch.float32)
    try:
        again = zipf.scaling_table(TINY, 1.5)
    finally:
        torch.set_default_dtype(previous)
    pd.testing.assert_frame_equal(first, again)
    other = zipf.scaling_table({**TINY, "seed": 6}, 1.5)
    assert not np.array_equal(first["error"].to_numpy(), other["error"].to_numpy())
    n_rows = first[first["sweep"] == "n"]
    assert len(n_rows) == 2 * 2 * 3 * len(zipf.sample_sizes(TINY))
    assert set(n_rows["d"]) == {32}
    d_rows = first[(first["sweep"] == "d") & (first["estimator"] != "top_k")]
    assert set(d_rows["n"]) == {100000} and len(d_rows) == 2 * 2 * 2 * 3
    assert first["error"].between(0, 1).all()


def test_table_rows_follow_their_rules():
    table = zipf.scaling_table(TINY, 2.0)
    top = table[table["estimator"] == "top_k"]
    for _, group in top.groupby(["vocabulary", "d", "seed"]):
        assert group["best"].sum() == 1
        best = group[group["best"]].iloc[0]
        assert best["error"] == group["error"].min() and best["stored"] == group["capacity"].iloc[0]
        assert best["stored"] == group[group["error"] == group["error"].min()]["stored"].min()
    threshold = table[table["estimator"] == "threshold"]
    assert (threshold["stored"] <= threshold["capacity"]).all()
    assert (threshold["threshold"] > 1).any() and (threshold["threshold"] == 1).any()
    seen = table[table["estimator"] == "seen"].set_index(["vocabulary", "sweep", "d", "n", "seed"])
    once = threshold[threshold["threshold"] == 1].set_index(["vocabulary", "sweep", "d", "n", "seed"])
    np.testing.assert_array_equal(once["error"], seen.loc[once.index, "error"])
    assert table[table["estimator"] != "threshold"]["threshold"].isna().all()
    rows = table[(table["estimator"] == "seen")]
    p = {N: zipf.zipf_probabilities(N, 2.0) for N in TINY["vocabularies"]}
    expected = [0.75 * zipf.expected_unseen_mass(p[N], n) for N, n in zip(rows["vocabulary"], rows["n"])]
    np.testing.assert_allclose(rows["infinite_memory"], expected, rtol=1e-12)


def test_a_memory_far_below_capacity_errs_only_on_unseen_tokens():
    """With d ≫ N (Theorem ②) and a large n, every token is seen and recalled: the error is 0."""
    block = {**TINY, "vocabularies": [20], "outputs": 4, "ds": [512], "d_for_n_sweep": 512}
    table = zipf.scaling_table(block, 2.0)
    final = table[(table["estimator"] == "seen") & (table["sweep"] == "d")]
    assert (final["error"] == 0).all()
    assert (table[table["estimator"] == "seen"]["stored_error"] == 0).all()  # nothing it stored is lost
    crowded = zipf.scaling_table({**TINY, "ds": [4, 8], "d_for_n_sweep": 8}, 2.0)
    assert (crowded["stored_error"] > 0).any() and (crowded["stored_error"] <= crowded["error"]).all()
    small_n = table[(table["estimator"] == "seen") & (table["n"] == 1)]
    assert (small_n["error"] > 0).all()


def test_fit_ranges_follow_the_stated_rules():
    block = {**TINY, "d_for_n_sweep": 1024, "outputs": 8, "fit_margin": 4, "n_fit_min": 4, "n_max": 2**22, "n_per_octave": 2}
    p = zipf.zipf_probabilities(32768, 1.5)
    assert zipf.fit_range_n(p, "counts", block) == pytest.approx((4, 32 / (4 * p[0])))
    low, high = zipf.fit_range_n(p, "seen", block)
    limit = 1024 / (32 * (1 / 8 + 1 / 1024))
    assert zipf.expected_seen_tokens(p, high) <= limit
    following = min(n for n in zipf.sample_sizes(block) if n > high)
    assert zipf.expected_seen_tokens(p, following) > limit
    assert zipf.fit_range_n(p, "threshold", block) == (low, high)


def test_fit_table_recovers_planted_power_laws_inside_the_ranges():
    block = {**TINY, "vocabularies": [300]}
    rows = []
    p = zipf.zipf_probabilities(300, 1.5)
    for estimator in zipf.ESTIMATORS:
        low, high = zipf.fit_range_n(p, estimator, block)
        for n in zipf.sample_sizes(block):
            for seed in (0, 1):
                inside = low <= n <= high
                rows.append({"alpha": 1.5, "vocabulary": 300, "estimator": estimator, "sweep": "n", "d": 32, "n": n,
                             "seed": seed, "error": 3.0 * n**-0.4 if inside else 0.9, "stored": 1, "best": False})
    for d in TINY["ds"]:
        for seed in (0, 1):
            rows += [{"alpha": 1.5, "vocabulary": 300, "estimator": name, "sweep": "d", "d": d, "n": 10**5, "seed": seed,
                      "error": 2.0 * d**slope, "stored": 1, "best": False} for name, slope in (("counts", -0.2), ("threshold", -0.6))]
            rows.append({"alpha": 1.5, "vocabulary": 300, "estimator": "top_k", "sweep": "d", "d": d, "n": pd.NA,
                         "seed": seed, "error": 5.0 * d**-0.7, "stored": int(d // 4), "best": True})
    fits = zipf.fit_table(pd.DataFrame(rows), block).set_index(["estimator", "quantity", "against"])
    for estimator in zipf.ESTIMATORS:
        assert fits.loc[(estimator, "error", "n"), "slope"] == pytest.approx(-0.4, abs=1e-9)
        assert fits.loc[(estimator, "error", "n"), "slides_exponent"] == pytest.approx(-1 / 3)
    assert fits.loc[("counts", "error", "d"), "slope"] == pytest.approx(-0.2, abs=1e-9)
    assert fits.loc[("threshold", "error", "d"), "slope"] == pytest.approx(-0.6, abs=1e-9)
    assert fits.loc[("top_k", "error", "d"), "slope"] == pytest.approx(-0.7, abs=1e-9)
    assert fits.loc[("top_k", "best_k", "d"), "slope"] == pytest.approx(1.0, abs=1e-9)
    assert fits.loc[("counts", "error", "d"), "slides_exponent"] == pytest.approx(-1 / 6)
    assert fits.loc[("threshold", "error", "d"), "slides_exponent"] == pytest.approx(-0.5)


def test_block_checks_name_the_bad_keys():
    with pytest.raises(ValueError, match="d_for_n_sweep"):
        zipf.check_block({**TINY, "d_for_n_sweep": 48})
    with pytest.raises(ValueError, match="alphas"):
        zipf.check_block({**TINY, "alphas": [1.0]})
    with pytest.raises(ValueError, match="n_for_d_sweep"):
        zipf.check_block({**TINY, "n_for_d_sweep": 0})


def test_figures_draw_the_slides_slopes_through_the_first_fitted_point():
    from icdenoise.studies.memory.plots import zipf_d, zipf_n, zipf_optimum

    block = {**TINY, "n_per_octave": 2}
    table = pd.concat([zipf.scaling_table(block, alpha) for alpha in block["alphas"]], ignore_index=True)
    tables = {"zipf": table, "zipf_fit": zipf.fit_table(table, block)}
    figure = zipf_n.render(tables)
    assert len(figure.axes) == 4
    top_left = figure.axes[0]
    fit = tables["zipf_fit"].set_index(["alpha", "estimator", "against", "quantity"]).loc[(1.5, "seen", "n", "error")]
    seen = table[(table["alpha"] == 1.5) & (table["vocabulary"] == 300) & (table["sweep"] == "n") & (table["estimator"] == "seen")]
    first = seen[seen["n"] >= fit["x_min"]]["n"].min()
    anchor = (float(first), float(seen[seen["n"] == first]["error"].mean()))
    segments = [line for line in top_left.get_lines() if len(line.get_xdata()) == 2 and line.get_xdata()[0] == anchor[0]]
    slopes = {round(float(np.diff(np.log(line.get_ydata()))[0] / np.diff(np.log(line.get_xdata()))[0]), 9) for line in segments}
    assert round(-1 / 3, 9) in slopes
    assert any(line.get_ydata()[0] == pytest.approx(anchor[1]) for line in segments)
    assert len(zipf_d.render(tables).axes) == 4
    assert len(zipf_optimum.render(tables).axes) == 4
