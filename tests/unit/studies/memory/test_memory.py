"""The memory study's capacity pieces against independent computations: bisection against a known
monotone accuracy, the log-log fit against scipy and its interval's coverage, the one-step memories
against autograd gradients of the population cross-entropy, the cross-talk variance against Monte-Carlo
with one independent memory per sample, and the argmax read-out against an explicit loop."""

import numpy as np
import pandas as pd
import pytest
import torch
from scipy import stats

from icdenoise.studies.memory import capacity, crosstalk, memories
from icdenoise.studies.memory.bisection import largest_n_above
from icdenoise.studies.memory.embeddings import gaussian_embeddings, generator
from icdenoise.maths.fits import loglog_slope

F32 = torch.float32


@pytest.mark.parametrize("start", [1, 7, 100, 5000])
def test_bisection_finds_the_last_passing_n_of_a_monotone_accuracy(start):
    """accuracy(N) = 1 − N/1000 passes 0.9 up to N = 100 exactly, from any start."""
    found, evaluations = largest_n_above(lambda n: 1 - n / 1000, 0.9, start, 10000, precision=0.0)
    assert found == 100
    assert all((1 - n / 1000 >= 0.9) == (n <= 100) for n, _ in evaluations)
    assert len(evaluations) < 30


def test_bisection_stops_within_its_precision_and_reports_failures():
    found, _ = largest_n_above(lambda n: 1 - n / 100000, 0.9, 10, 10**6, precision=0.05)
    assert 10000 / 1.05 <= found <= 10000
    assert largest_n_above(lambda n: 0.0, 0.9, 8, 100)[0] == 0
    with pytest.raises(ValueError, match="max_n"):
        largest_n_above(lambda n: 1.0, 0.9, 8, 100)


def test_loglog_slope_matches_scipy_and_its_interval_covers_at_the_stated_rate():
    rng = np.random.default_rng(0)
    x = np.repeat([32.0, 64, 128, 256, 512], 3)
    y = 0.3 * x**1.8 * np.exp(rng.normal(0, 0.1, x.size))
    fit, reference = loglog_slope(x, y), stats.linregress(np.log(x), np.log(y))
    assert fit["slope"] == pytest.approx(reference.slope, rel=1e-12)
    half = stats.t.ppf(0.975, x.size - 2) * reference.stderr
    assert (fit["ci_low"], fit["ci_high"]) == pytest.approx((reference.slope - half, reference.slope + half), rel=1e-10)
    covered = 0
    for _ in range(1000):
        y = 0.3 * x**1.8 * np.exp(rng.normal(0, 0.1, x.size))
        fit = loglog_slope(x, y)
        covered += fit["ci_low"] <= 1.8 <= fit["ci_high"]
    assert 0.93 <= covered / 1000 <= 0.97
    with pytest.raises(ValueError, match="positive"):
        loglog_slope([1, 2, 3], [1, 0, 2])


def population_gradient(inputs, outputs, targets):
    """∇_W of the mean cross-entropy of logits U W x over the given (x, target) pairs, at W = 0, by autograd."""
    memory = torch.zeros(inputs.shape[1], inputs.shape[1], dtype=torch.float64, requires_grad=True)
    logits = inputs @ memory.T @ outputs.T
    torch.nn.functional.cross_entropy(logits, targets).backward()
    return memory.grad


@pytest.mark.parametrize("outputs_count", [2, 5, 24])
def test_the_gradient_step_is_minus_the_autograd_gradient_at_zero(outputs_count):
    """Slide 8: W₁ = (1/N) Σ_z Σ_k (1{f(z) = k} − 1/M) u_k e_zᵀ = −∇L(0), for any M."""
    rng = torch.Generator().manual_seed(0)
    inputs, outputs = torch.randn(24, 16, generator=rng, dtype=torch.float64), torch.randn(outputs_count, 16, generator=rng, dtype=torch.float64)
    targets = torch.randint(outputs_count, (24,), generator=rng)
    torch.testing.assert_close(memories.gradient_step(inputs, outputs, targets), -population_gradient(inputs, outputs, targets))


def test_the_noisy_step_is_minus_the_gradient_over_every_token_and_position():
    """Slide 23: with x = e_y + p_t over all (y, t), −∇L(0) = (1/N) Σ_k u_k (e_k − ē)ᵀ; positions cancel."""
    rng = torch.Generator().manual_seed(1)
    tokens, positions = torch.randn(12, 10, generator=rng, dtype=torch.float64), torch.randn(5, 10, generator=rng, dtype=torch.float64)
    outputs = torch.randn(12, 10, generator=rng, dtype=torch.float64)
    inputs = (tokens[:, None, :] + positions[None, :, :]).reshape(-1, 10)
    targets = torch.arange(12).repeat_interleave(5)
    torch.testing.assert_close(memories.noisy_gradient_step(tokens, outputs), -population_gradient(inputs, outputs, targets))


def test_the_low_rank_memory_is_one_autograd_step_on_the_second_factor():
    """Slide 9: W = W₁ᵀW₂ with W₂ = −∇_{W₂} L at W₂ = 0 (W₁ fixed)."""
    rng = torch.Generator().manual_seed(2)
    inputs, outputs = torch.randn(20, 12, generator=rng, dtype=torch.float64), torch.randn(20, 12, generator=rng, dtype=torch.float64)
    projection, targets = torch.randn(4, 12, generator=rng, dtype=torch.float64), torch.arange(20)
    second = torch.zeros(4, 12, dtype=torch.float64, requires_grad=True)
    torch.nn.functional.cross_entropy(inputs @ (projection.T @ second).T @ outputs.T, targets).backward()
    torch.testing.assert_close(memories.low_rank(inputs, outputs, targets, projection), projection.T @ -second.grad)


def test_recalled_counts_argmax_hits_as_an_explicit_loop():
    rng = generator(3)
    inputs, outputs = gaussian_embeddings(rng, 300, 16), gaussian_embeddings(rng, 40, 16)
    targets = torch.arange(300) % 40
    memory = memories.hebbian(inputs, outputs, targets)
    hits = sum(int(max(range(40), key=lambda y: float(outputs[y] @ memory @ inputs[z])) == targets[z]) for z in range(300))
    assert capacity.recalled(memory, inputs, outputs, targets) == pytest.approx(hits, abs=1)


def test_orthonormal_embeddings_store_d_pairs_exactly_and_random_ones_degrade_with_n():
    inputs = outputs = torch.eye(32, dtype=F32)
    assert capacity.recalled(memories.hebbian(inputs, outputs, torch.arange(32)), inputs, outputs, torch.arange(32)) == 32
    memory = capacity.ReplicatedMemory("injective", 32, 0, 16, 8)
    assert memory.accuracy("hebbian", 8, 1024) > 0.97
    assert memory.accuracy("hebbian", 2000, 1024) < 0.2


def test_small_memories_pool_enough_independent_replicas():
    """N = 12 < queries = 100: the accuracy pools ⌈100/12⌉ = 9 replicas' 12 recalls each."""
    memory = capacity.ReplicatedMemory("binary", 16, 3, 16, 8)
    accuracy = memory.accuracy("hebbian", 12, 100)
    assert len(memory.draws) == 9
    pooled = [capacity.MemoryDraw("binary", 16, 3, 16, 8, replica=replica).hits("hebbian", 12, 100) for replica in range(9)]
    assert accuracy == sum(hits for hits, _ in pooled) / 108
    assert len({hits for hits, _ in pooled}) > 1  # the replicas are independent draws


def test_nested_embeddings_extend_their_prefix_and_have_variance_one_over_d():
    table = capacity.NestedEmbeddings(5, 64, "input")
    short = table.first(100).clone()
    long = capacity.NestedEmbeddings(5, 64, "input").first(3000)
    torch.testing.assert_close(long[:100], short)
    assert float(long.var()) == pytest.approx(1 / 64, rel=0.03)


def test_simulated_gamma_is_u_y_w_e_z():
    rng = generator(4)
    correct, wrong = crosstalk.simulate_gamma(8, 12, 3, 1, rng)
    rng = generator(4)
    inputs, table = gaussian_embeddings(rng, 12, 8), gaussian_embeddings(rng, 3, 8)
    targets = torch.arange(12) % 3
    memory = memories.hebbian(inputs, table, targets)
    torch.testing.assert_close(correct[0], torch.einsum("zd,de,ze->z", table[targets], memory, inputs))
    torch.testing.assert_close(wrong[0], torch.einsum("zd,de,ze->z", table[(targets + 1) % 3], memory, inputs))


@pytest.mark.parametrize("d, stored, outputs", [(8, 6, 6), (8, 12, 2), (16, 12, 3)])
def test_the_exact_cross_talk_variance_matches_independent_memories(d, stored, outputs):
    """One fresh memory per sample (no pooling across z), float64: the exact variance within 4 standard errors."""
    rng = torch.Generator().manual_seed(d * stored + outputs)
    draws = 60000
    inputs = torch.randn(draws, stored, d, generator=rng, dtype=torch.float64) / np.sqrt(d)
    table = torch.randn(draws, outputs, d, generator=rng, dtype=torch.float64) / np.sqrt(d)
    targets = torch.arange(stored) % outputs
    memory = torch.einsum("rzd,rze->rde", table[:, targets], inputs)
    correct = torch.einsum("rd,rde,re->r", table[:, 0], memory, inputs[:, 0])
    wrong = torch.einsum("rd,rde,re->r", table[:, 1], memory, inputs[:, 0])
    n_y = stored // outputs
    for values, is_correct in ((correct, True), (wrong, False)):
        exact = crosstalk.exact_variance(d, stored, n_y, is_correct)
        sample = float(values.var())
        fourth = float(((values - values.mean()) ** 4).mean())
        standard_error = np.sqrt((fourth - sample**2) / draws)
        assert abs(sample - exact) < 4 * standard_error, (is_correct, sample, exact)
        assert abs(float(values.mean()) - float(is_correct)) < 4 * np.sqrt(sample / draws)
    assert crosstalk.slides_variance(d, stored, n_y) == pytest.approx(n_y / d + (stored - n_y) / d**2)


@pytest.mark.parametrize("map_name, stored", [("injective", 8), ("binary", 16)])
def test_the_variance_standard_error_is_the_spread_of_the_variance_over_independent_tables(map_name, stored):
    """variance_se against the standard deviation of `variance` over 300 tables of independent seeds. In the binary
    map the 8 inputs of one output share its u_y, so the values of one memory are correlated and an i.i.d. standard
    error (√((m₄ − s⁴)/n)) would be too small; the per-memory one must not be."""
    block = {"maps": [map_name], "ds": [8], "stored": [stored], "samples": 40 * stored}
    tables = pd.concat([crosstalk.variance_table({**block, "seed": seed}, 16) for seed in range(300)])
    for output, rows in tables.groupby("output"):
        assert (rows["draws"] == 40).all()
        spread, reported = rows["variance"].std(), rows["variance_se"].mean()
        assert reported == pytest.approx(spread, rel=0.15), (output, reported, spread)


def test_the_variance_standard_error_is_nan_for_one_memory():
    assert np.isnan(crosstalk.variance_standard_error(torch.randn(1, 50, dtype=torch.float64)))
    values = torch.tensor([[0.0, 2.0], [1.0, 1.0], [4.0, 0.0]], dtype=torch.float64)  # pooled mean 4/3
    per_draw = np.array([(16 + 4) / 9 / 2, (1 + 1) / 9 / 2, (64 + 16) / 9 / 2])  # mean squared deviation per memory
    assert crosstalk.variance_standard_error(values) == pytest.approx(6 / 5 * per_draw.std(ddof=1) / np.sqrt(3))


def test_the_variance_bound_with_interval_takes_the_largest_ends_of_simultaneous_intervals():
    from icdenoise.records.claims import ledger
    from icdenoise.studies.memory.claims import CLAIMS

    table = pd.DataFrame({"variance": [3.8, 3.0, 0.5], "variance_se": [0.02, 0.4, 0.01], "draws": [1250, 20, 79],
                          "slides_variance": [1.0, 1.0, 0.25]})
    table["over_slides"] = table["variance"] / table["slides_variance"]
    measurement = CLAIMS["gamma_variance_bound_with_interval"].measure({"variance": table}, {})
    # Bonferroni over 3 points: each two-sided interval at 1 − 0.05/3; the upper end comes from the second point
    ends = [(v - stats.t.ppf(1 - 0.025 / 3, n - 1) * se, v + stats.t.ppf(1 - 0.025 / 3, n - 1) * se)
            for v, se, n in zip(table["over_slides"], table["variance_se"] / table["slides_variance"], table["draws"])]
    assert measurement.values.tolist() == [3.8]
    assert measurement.interval == pytest.approx((max(low for low, _ in ends), max(high for _, high in ends)))
    assert measurement.interval[1] == pytest.approx(3.0 + stats.t.ppf(1 - 0.025 / 3, 19) * 0.4)
    spec = {"inconclusive": ["interval"], "paper_value": 1.0, "comparison": "at_most", "tolerance": 3.25, "tolerance_reason": ""}
    claims = {name: CLAIMS[name] for name in ("gamma_variance_bound", "gamma_variance_bound_with_interval")}
    rows = ledger(claims, {"variance": table}, {"gamma_variance_bound": {**spec, "superseded_by": "gamma_variance_bound_with_interval"},
                                                "gamma_variance_bound_with_interval": spec}).set_index("claim")
    assert rows.loc["gamma_variance_bound", "why_inconclusive"] == "one value and no interval to judge it by"  # unchanged
    assert rows.loc["gamma_variance_bound_with_interval", "verdict"] == "PASS"  # upper end 4.05 ≤ 4.25
    wide = table.assign(variance_se=[0.02, 0.6, 0.01])  # upper end 4.57
    assert ledger(claims, {"variance": wide}, {"gamma_variance_bound_with_interval": spec}).loc[0, "verdict"] == "INCONCLUSIVE"
