"""The all-token claims as the explainer states them (docs/claims_as_stated.md), against independent
computations: the first figure's x̂* with the query among the particles and apart from them (a naive float64
flow in NumPy), the paired gap of the two-stage estimator to Stage 2 alone over Fig. 4(a)'s shared contexts
(scipy's one-sample t-interval of the per-context differences, and the per-context MSEs recomputed from the
estimates), and the paired gap to Bayes across N (the per-N means of per-context gaps by hand, the interval of one
step against the normal interval of a difference of two independent means)."""

import numpy as np
import pandas as pd
import pytest
import torch
import yaml
from scipy import stats

from icdenoise.maths.cases import make_case
from icdenoise.maths.estimators import closed_form_denoisers
from icdenoise.records.claims import ledger
from icdenoise.studies.alltoken.before_after import before_after_tables
from icdenoise.studies.alltoken.claims import CLAIMS
from icdenoise.studies.alltoken.empirical_bayes import DTYPE, particle_flow, stage_estimates
from icdenoise.studies.alltoken.mse import mse_by_depth, summarise
from icdenoise.studies.alltoken.priors import mixture, noisy_contexts

BLOCK = {"centres": [[-2.0], [2.0]], "sigma_z_sq": 0.5, "tokens": 8, "query": 1.4, "query_clean": 2.0, "beta": 5.0,
         "eta": 0.1, "depth": 6, "draws": 5, "energy_extent": 4.0, "energy_points": 11, "seed": 3}
MIXTURE_CASE = {"task": "mixture", "n": 1, "centres": [[-1.0], [1.0]], "sigma0_sq": 0.05,
                "corruption": {"kind": "all_tokens", "sigma_z_sq": 0.5}, "L": 30}
NEW = ("fig1_depth40_query_in_particles_measured", "fig1_depth40_query_apart_measured", "fig4a_two_stage_beats_stage2_only")


def naive_flow(particles: np.ndarray, beta: float, eta: float, layers: int) -> np.ndarray:
    """Stage 1 on 1-D particles (draws, tokens), every pair at once, in float64."""
    for _ in range(layers):
        logits = -beta / 2 * (particles[:, :, None] - particles[:, None, :]) ** 2
        weights = np.exp(logits - logits.max(-1, keepdims=True))
        particles = particles + eta * ((weights * particles[:, None, :]).sum(-1) / weights.sum(-1) - particles)
    return particles


def naive_posterior_mean(query: float, particles: np.ndarray, sigma_z_sq: float) -> np.ndarray:
    """Σ_j softmax_j(−(y − z_j)²/(2σ²)) z_j for one query y and each draw's particles, in float64."""
    logits = -(query - particles) ** 2 / (2 * sigma_z_sq)
    weights = np.exp(logits - logits.max(-1, keepdims=True))
    return (weights * particles).sum(-1) / weights.sum(-1)


def test_the_first_figure_gives_x_hat_with_the_query_among_the_particles_and_apart_from_them():
    estimates = before_after_tables(BLOCK)[0]
    _, noisy = noisy_contexts(mixture(BLOCK["centres"]), BLOCK["draws"], BLOCK["tokens"] - 1, BLOCK["sigma_z_sq"], BLOCK["seed"])
    others = noisy[:, :, 0].double().numpy()
    with_query = np.concatenate([others, np.full((BLOCK["draws"], 1), BLOCK["query"])], axis=1)
    for depth in (0, BLOCK["depth"]):
        rows = estimates[estimates["depth"] == depth].sort_values("draw")
        among = naive_posterior_mean(BLOCK["query"], naive_flow(with_query, BLOCK["beta"], BLOCK["eta"], depth), BLOCK["sigma_z_sq"])
        apart = naive_posterior_mean(BLOCK["query"], naive_flow(others, BLOCK["beta"], BLOCK["eta"], depth), BLOCK["sigma_z_sq"])
        np.testing.assert_allclose(rows["estimate"], among, atol=1e-5)
        np.testing.assert_allclose(rows["estimate_query_apart"], apart, atol=1e-5)
        assert np.abs(among - apart).max() > 1e-3  # the readings differ: the query's own particle pulls x̂* toward it


def test_the_depth40_claims_read_each_reading_at_the_deepest_depth():
    table = pd.DataFrame({"draw": [0, 1, 0, 1], "depth": [0, 0, 40, 40], "estimate": [0.1, 0.2, 1.9, 2.1],
                          "estimate_query_apart": [0.0, 0.3, 1.7, 1.5]})
    frames = {"before_after": table}
    np.testing.assert_allclose(CLAIMS["fig1_depth40_query_in_particles_measured"].measure(frames, {}), [1.9, 2.1])
    np.testing.assert_allclose(CLAIMS["fig1_depth40_query_apart_measured"].measure(frames, {}), [1.7, 1.5])
    np.testing.assert_allclose(CLAIMS["fig1_depth40_near_plus_two"].measure(frames, {}), [1.9, 2.1])  # the old claim: unchanged


def _per_context(two_stage, stage2_only, bayes, n_tokens=8000, depth=200):
    """A per-context table as evaluate_alltoken_mse writes it, at one N and the bars' depth, beside a smaller N
    and another depth that the measure must ignore."""
    rows = []
    for tokens, at_depth, scale in ((n_tokens, depth, 1.0), (n_tokens, depth + 10, 5.0), (n_tokens // 2, depth, 7.0)):
        for name, values in (("two_stage", two_stage), ("stage2_only", stage2_only), ("bayes", bayes), ("stage1_only", bayes)):
            rows += [{"N": tokens, "context": c, "depth": at_depth, "estimator": name, "mse_over_sigma2": scale * v}
                     for c, v in enumerate(values)]
    bars = pd.DataFrame({"estimator": ["bayes"], "N": [n_tokens], "L": [depth]})
    return {"mse_per_context": pd.DataFrame(rows), "mse_by_n": bars}


def test_the_paired_gap_is_per_context_over_bayes_with_scipys_paired_interval():
    bayes = np.array([0.40, 0.55, 0.70, 0.45])
    stage2_only = np.array([0.80, 1.10, 1.40, 0.90])  # contexts differ widely; Stage 1 gains 0.2-0.3 of Bayes in each
    two_stage = stage2_only - np.array([0.10, 0.14, 0.18, 0.12])
    measurement = CLAIMS["fig4a_two_stage_beats_stage2_only"].measure(_per_context(two_stage, stage2_only, bayes), {})
    expected = (two_stage - stage2_only) / bayes
    np.testing.assert_allclose(measurement.values, expected)
    low, high = stats.ttest_1samp(expected, 0.0).confidence_interval(0.95)
    assert measurement.interval == pytest.approx((low, high))
    assert high < 0  # paired, the consistent gain is decided
    unpaired = stats.ttest_ind(two_stage / bayes.mean(), stage2_only / bayes.mean()).confidence_interval(0.95)
    assert unpaired.low < 0 < unpaired.high  # unpaired, the spread between contexts hides it
    assert "paired" in measurement.method


def test_the_new_claims_are_judged_as_configured(repo):
    config = yaml.safe_load((repo / "config" / "config.yaml").read_text())["alltoken"]["claims"]
    estimates = pd.DataFrame({"draw": [0, 1, 0, 1], "depth": [0, 0, 40, 40], "estimate": [0.1, 0.2, 1.9, 2.1],
                              "estimate_query_apart": [0.0, 0.3, 1.7, 1.5]})
    bayes = np.array([0.40, 0.55, 0.70, 0.45])
    better = {"before_after": estimates, **_per_context(bayes * 1.5, bayes * 2.0 + [0.0, 0.02, 0.0, 0.01], bayes)}
    table = ledger(CLAIMS, better, {claim: config[claim] for claim in NEW}).set_index("claim")
    assert table.loc[list(NEW[:2]), "verdict"].tolist() == ["MEASURED", "MEASURED"]
    assert table.loc["fig1_depth40_query_apart_measured", "ours_mean"] == pytest.approx(1.6)
    assert table.loc["fig4a_two_stage_beats_stage2_only", "verdict"] == "PASS"
    worse = {"before_after": estimates, **_per_context(bayes * 2.0 + [0.0, 0.02, 0.0, 0.01], bayes * 1.5, bayes)}
    assert ledger(CLAIMS, worse, {NEW[2]: config[NEW[2]]}).iloc[0]["verdict"] == "FAIL"
    mixed = {"before_after": estimates, **_per_context(bayes * [1.4, 2.1, 1.3, 2.2], bayes * 1.75, bayes)}
    assert ledger(CLAIMS, mixed, {NEW[2]: config[NEW[2]]}).iloc[0]["verdict"] == "INCONCLUSIVE"


def test_the_paired_gap_reads_the_tables_the_pipeline_writes():
    block = {"beta": 20.0, "eta": 0.05, "depth": 10, "max_depth": 20, "depth_step": 10, "seed": 6}
    per_n = pd.concat([mse_by_depth(MIXTURE_CASE, block, tokens, 4) for tokens in (20, 40)], ignore_index=True)
    bars, _ = summarise(per_n, block["depth"])
    measurement = CLAIMS["fig4a_two_stage_beats_stage2_only"].measure({"mse_per_context": per_n, "mse_by_n": bars}, {})
    case = make_case(MIXTURE_CASE)  # the same contexts, their MSEs recomputed from the estimates
    prompts = case.sample(4, 40, block["seed"])
    noisy = torch.as_tensor(prompts.context, dtype=DTYPE)
    (_, particles), = particle_flow(noisy, block["beta"], block["eta"], [block["depth"]])
    estimates = stage_estimates(noisy, particles, 0.5)
    bayes = closed_form_denoisers(case)["oracle"].predict(prompts)[0]
    error = lambda estimate: ((np.asarray(estimate, dtype=float) - prompts.target) ** 2).mean(axis=(1, 2))  # noqa: E731
    expected = (error(estimates["two_stage"]) - error(estimates["stage2_only"])) / error(bayes)
    np.testing.assert_allclose(measurement.values, expected, rtol=1e-5)


def _gap_tables(bayes_by_n: dict, gap_by_n: dict, depth=200):
    """Per-context MSEs at each N (two-stage = Bayes × (1 + that context's gap)), beside another depth the measure
    must ignore, with the bars that summarise writes from them."""
    rows = []
    for tokens, bayes in bayes_by_n.items():
        two_stage = bayes * (1 + gap_by_n[tokens])
        for at_depth, scale in ((depth, 1.0), (depth + 10, 3.0)):
            for name, values in (("two_stage", two_stage * scale), ("bayes", bayes), ("stage2_only", 2 * bayes), ("stage1_only", 3 * bayes)):
                rows += [{"N": tokens, "context": c, "depth": at_depth, "estimator": name, "mse_over_sigma2": v}
                         for c, v in enumerate(values)]
    per_context = pd.DataFrame(rows).assign(beta=20.0, eta=0.025, sigma_z_sq=0.5, theory_depth=200.0)
    bars, by_depth = summarise(per_context, depth)
    return {"mse_per_context": per_context, "mse_by_n": bars, "mse_by_depth": by_depth}


def test_the_paired_gap_to_bayes_steps_between_the_per_n_means_of_per_context_gaps():
    rng = np.random.default_rng(3)
    bayes = {50: rng.uniform(0.2, 0.6, 6), 200: rng.uniform(0.2, 0.6, 5), 8000: rng.uniform(0.2, 0.6, 3)}
    gaps = {50: 0.30 + rng.normal(0, 0.01, 6), 200: 0.10 + rng.normal(0, 0.01, 5), 8000: 0.04 + rng.normal(0, 0.01, 3)}
    frames = _gap_tables(bayes, gaps)
    measurement = CLAIMS["fig4a_larger_n_closes_gap_paired"].measure(frames, {})
    means = []  # by hand: per context, (two-stage − Bayes) / Bayes at the bars' depth, then the mean per N
    for tokens in (50, 200, 8000):
        table = frames["mse_per_context"]
        at = table[(table["N"] == tokens) & (table["depth"] == 200)]
        two = at[at["estimator"] == "two_stage"].sort_values("context")["mse_over_sigma2"].to_numpy()
        ref = at[at["estimator"] == "bayes"].sort_values("context")["mse_over_sigma2"].to_numpy()
        means.append(np.mean((two - ref) / ref))
    assert measurement.values == pytest.approx([max(means[1] - means[0], means[2] - means[1])])
    assert measurement.values[0] == pytest.approx(-0.06, abs=0.02)
    assert measurement.interval[1] < 0 and "paired" in measurement.method  # paired, every step closes the gap
    unpaired = CLAIMS["fig4a_larger_n_closes_gap"].measure(frames, {})  # the bars' ratio: the contexts' spread in Bayes MSE stays
    assert unpaired.interval[0] < 0 < unpaired.interval[1]


def test_the_paired_gap_interval_of_one_step_is_the_difference_of_two_independent_means():
    rng = np.random.default_rng(4)
    bayes = {200: rng.uniform(0.2, 0.6, 400), 1000: rng.uniform(0.2, 0.6, 300)}
    gaps = {200: rng.normal(0.10, 0.05, 400), 1000: rng.normal(0.09, 0.04, 300)}
    measurement = CLAIMS["fig4a_larger_n_closes_gap_paired"].measure(_gap_tables(bayes, gaps), {})
    step = gaps[1000].mean() - gaps[200].mean()
    half = stats.norm.ppf(0.975) * np.hypot(stats.sem(gaps[200]), stats.sem(gaps[1000]))  # hundreds of contexts: t ≈ normal
    assert measurement.values == pytest.approx([step])
    assert measurement.interval == pytest.approx((step - half, step + half), abs=0.06 * half)  # 4000 bootstrap draws


def test_the_paired_gap_claim_is_judged_as_configured_and_supersedes_the_unpaired_one(repo):
    config = yaml.safe_load((repo / "config" / "config.yaml").read_text())["alltoken"]["claims"]
    spec = {"fig4a_larger_n_closes_gap_paired": config["fig4a_larger_n_closes_gap_paired"]}
    assert config["fig4a_larger_n_closes_gap"]["superseded_by"] == "fig4a_larger_n_closes_gap_paired"
    assert config["fig4a_larger_n_closes_gap_paired"]["exploratory"]  # the paired reading came after the unpaired result
    rng = np.random.default_rng(5)
    bayes = {50: rng.uniform(0.2, 0.6, 8), 1000: rng.uniform(0.2, 0.6, 4), 8000: rng.uniform(0.2, 0.6, 3)}
    closing = {50: 0.3 + rng.normal(0, 0.01, 8), 1000: 0.1 + rng.normal(0, 0.01, 4), 8000: 0.03 + rng.normal(0, 0.01, 3)}
    verdict = lambda gaps: ledger(CLAIMS, _gap_tables(bayes, gaps), spec).iloc[0]["verdict"]  # noqa: E731
    assert verdict(closing) == "PASS"
    assert verdict({**closing, 8000: 0.2 + rng.normal(0, 0.01, 3)}) == "FAIL"  # the last step reopens the gap
    assert verdict({**closing, 8000: np.array([0.0, 0.2, 0.1])}) == "INCONCLUSIVE"  # three contexts far apart


def test_the_paired_gap_to_bayes_reads_the_tables_the_pipeline_writes():
    block = {"beta": 20.0, "eta": 0.05, "depth": 10, "max_depth": 20, "depth_step": 10, "seed": 6}
    counts = {20: 4, 40: 3}
    per_n = pd.concat([mse_by_depth(MIXTURE_CASE, block, tokens, contexts) for tokens, contexts in counts.items()], ignore_index=True)
    bars, _ = summarise(per_n, block["depth"])
    measurement = CLAIMS["fig4a_larger_n_closes_gap_paired"].measure({"mse_per_context": per_n, "mse_by_n": bars}, {})
    case = make_case(MIXTURE_CASE)  # the same contexts, their MSEs recomputed from the estimates
    means = []
    for tokens, contexts in counts.items():
        prompts = case.sample(contexts, tokens, block["seed"])
        noisy = torch.as_tensor(prompts.context, dtype=DTYPE)
        (_, particles), = particle_flow(noisy, block["beta"], block["eta"], [block["depth"]])
        error = lambda estimate: ((np.asarray(estimate, dtype=float) - prompts.target) ** 2).mean(axis=(1, 2))  # noqa: E731
        bayes = error(closed_form_denoisers(case)["oracle"].predict(prompts)[0])
        means.append(np.mean((error(stage_estimates(noisy, particles, 0.5)["two_stage"]) - bayes) / bayes))
    np.testing.assert_allclose(measurement.values, [means[1] - means[0]], rtol=1e-5, atol=1e-7)
