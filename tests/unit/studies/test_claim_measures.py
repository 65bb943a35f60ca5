"""The measures and inconclusive rules added for citable ledgers, each against a table built by hand or an
independent computation: Theorem 3.1's excess, the all-token cluster count and Stage-2 scan, the MSSA
on-line gain and plateau rule, and the per-d low-rank fits."""

import numpy as np
import pandas as pd
import pytest
import torch

from icdenoise.maths.cases import make_case
from icdenoise.maths.estimators import closed_form_denoisers
from icdenoise.maths.scoring import per_prompt_errors
from icdenoise.studies.alltoken.claims import _not_specific_to_beta, massive_clusters
from icdenoise.studies.alltoken.empirical_bayes import DTYPE, particle_flow, stage_estimates
from icdenoise.studies.alltoken.mse import cross_bandwidth_scan
from icdenoise.studies.mssa.claims import _depth_too_short, _gain_on_line, _largest_gain, _reference_on_plateau
from icdenoise.studies.onelayer.convergence import convergence_table, rate_fit

SPHERE = {"task": "sphere", "n": 4, "d": 2, "radius": 1.0, "corruption": {"kind": "query", "sigma_z_sq": 0.1}, "L": 50}


def test_the_excess_of_eq13_is_its_extra_mse_over_bayes_on_the_same_prompts():
    theorem = {"context_lengths": [20, 200], "n_prompts": 3000, "chunk_size": 700, "seed": 5, "fit_from": 20}
    table = convergence_table(SPHERE, theorem).set_index("L")
    case = make_case(SPHERE)
    denoisers = closed_form_denoisers(case)
    for length in theorem["context_lengths"]:  # the extra MSE, from the targets, equals the exact excess within Monte-Carlo error
        errors = per_prompt_errors({name: denoisers[name] for name in ("oracle", "ideal_softmax")},
                                   case.sample(theorem["n_prompts"], length, theorem["seed"]))
        extra = errors["ideal_softmax"][0] - errors["oracle"][0]
        assert extra.mean() == pytest.approx(table.loc[length, "excess"], abs=4 * extra.std(ddof=1) / np.sqrt(extra.size))
        assert errors["oracle"][0].mean() == pytest.approx(table.loc[length, "bayes_mse"], rel=1e-9)
    assert table.loc[200, "excess"] < table.loc[20, "excess"]


def test_the_rate_fit_recovers_a_power_law():
    table = pd.DataFrame({"L": [100, 300, 1000, 3000], "excess": 5.0 * np.array([100, 300, 1000, 3000.0]) ** -1.0})
    fit = rate_fit(table, 300).iloc[0]
    assert fit["slope"] == pytest.approx(-1.0) and fit["points"] == 3 and fit["fit_from"] == 300


def test_massive_clusters_count_only_groups_above_the_mass_floor():
    positions = np.array([-2.0] * 10 + [0.0] + [2.0] * 9)  # 20 particles: 10, 1, 9
    assert massive_clusters(positions, 0.1, 0.06) == 2 and massive_clusters(positions, 0.1, 0.05) == 3
    flow = pd.DataFrame({"beta": [1.0] * 20 + [20.0] * 20, "depth": 40, "theory_depth": 40,
                         "position": np.concatenate([positions, np.linspace(-2, 2, 20)])})
    spec = {"beta": 20.0, "cluster_gap": 0.1, "mass_floor": 0.1}
    assert "smaller β" in _not_specific_to_beta({"flow": flow}, spec)  # β = 1 has 2 clusters of mass ≥ 10%, β = 20 none
    flow.loc[flow["beta"] == 20.0, "position"] = np.repeat([-2.0, -1.0, 1.0, 2.0], 5)
    assert _not_specific_to_beta({"flow": flow}, spec) is None  # β = 20: 4 clusters, more than β = 1's 2


def test_the_stage2_scan_at_one_over_sigma2_is_the_two_stage_estimate():
    case_block = {"task": "mixture", "n": 1, "centres": [[-1.0], [1.0]], "sigma0_sq": 0.05,
                  "corruption": {"kind": "all_tokens", "sigma_z_sq": 0.5}, "L": 50}
    block = {"beta": 20.0, "eta": 0.025, "depth": 30}
    scan = cross_bandwidth_scan(case_block, block, {"n_tokens": 60, "contexts": 3, "beta_c_sigma2": [0.5, 1.0, 2.0], "seed": 4})
    case = make_case(case_block)
    prompts = case.sample(3, 60, 4)
    noisy = torch.as_tensor(prompts.context, dtype=DTYPE)
    (_, particles), = particle_flow(noisy, 20.0, 0.025, [30])
    two_stage = stage_estimates(noisy, particles, 0.5)["two_stage"].double().numpy()
    expected = ((two_stage - prompts.target) ** 2).mean(axis=(1, 2)) / 0.5
    np.testing.assert_allclose(scan[scan["beta_c_sigma2"] == 1.0]["mse_over_sigma2"], expected, rtol=1e-6)


def _snr(gains, theory_gains):
    rows = []
    for seed, (gain, theory) in enumerate(zip(gains, theory_gains)):
        rows += [{"delta": 0.2, "phi": "thresholded", "seed": seed, "layer": layer, "snr": 2.0 * g, "theory": 2.0 * t}
                 for layer, (g, t) in enumerate(zip(gain, theory))]
    return {"snr": pd.DataFrame(rows)}


def test_the_gain_on_the_line_stops_at_the_first_layer_off_it_whatever_the_depth():
    theory = 1.2 ** np.arange(8)
    leaves = np.concatenate([theory[:5], theory[5:] * 0.5])  # layers 0-4 on the line, then off
    spec = {"delta": 0.2, "phi": "thresholded", "band": 0.1, "paper_value": 2.0}
    assert _gain_on_line(_snr([leaves], [theory]), spec) == pytest.approx([1.2 ** 4])
    assert _gain_on_line(_snr([leaves[:7]], [theory[:7]]), spec) == pytest.approx([1.2 ** 4])  # a shorter run: the same
    assert _depth_too_short(_snr([leaves], [theory]), spec) is None
    assert "seed 0" in _depth_too_short(_snr([theory[:3]], [theory[:3]]), spec)  # still on the line, gain 1.44 < 2
    assert _largest_gain(_snr([leaves], [theory]), spec) == pytest.approx([1.2 ** 4])


def test_the_plateau_rule_fires_when_the_reference_model_did_not_learn():
    rows = [{"task": "sparse", "model": model, "seed": 0, "examples": k, "normalized_mse": error, "d": 4}
            for model, error in (("mhsa", 0.2), ("transformer", 0.97)) for k in range(8)]
    spec = {"regression_task": "sparse", "architecture": "mhsa", "versus_architecture": "transformer", "plateau": 0.9}
    assert "stayed on the plateau" in _reference_on_plateau({"regression": pd.DataFrame(rows)}, spec)
    learned = pd.DataFrame(rows).assign(normalized_mse=0.3)
    assert _reference_on_plateau({"regression": learned}, spec) is None


def test_the_d_exponent_is_fitted_per_range_and_a_verdict_that_rests_on_the_range_is_undecided():
    from icdenoise.studies.memory import zipf
    from icdenoise.studies.memory.claims import _range_dependent

    block = {"alphas": [2.0], "vocabularies": [300], "outputs": 4, "ds": [64, 128, 256, 512, 1024], "d_for_n_sweep": 64,
             "n_max": 256, "n_per_octave": 1, "n_for_d_sweep": 100000, "top_k_over_d": [0.25, 2.0], "top_k_per_octave": 2,
             "n_fit_min": 1, "fit_margin": 2, "seed": 5, "seeds": [0, 1]}
    bent = {64: 2.0, 128: 1.0, 256: 0.8, 512: 0.64, 1024: 0.512}  # slope −1 from 64 to 128, then log2(0.8) ≈ −0.32
    rows = [{"alpha": 2.0, "vocabulary": 300, "estimator": "threshold", "sweep": "d", "d": d, "n": 10**5, "seed": seed,
             "error": error, "stored": 1, "best": False} for d, error in bent.items() for seed in (0, 1)]
    fits = zipf.fit_table(pd.DataFrame(rows), block).query("estimator == 'threshold' and quantity == 'error'")
    assert sorted(fits.loc[fits["against"] == "d_range", "x_min"]) == [128, 256]
    assert fits.loc[fits["x_min"] == 256, "slope"].iloc[0] == pytest.approx(np.log2(0.8))
    spec = {"alpha": 2.0, "paper_value": -1.0, "comparison": "within_absolute", "tolerance": 0.6}  # full range: slope −0.456
    assert "d ≥ 64" in _range_dependent({"zipf_fit": fits}, spec, "threshold", "error")  # full range passes, d ≥ 128 fails
    assert _range_dependent({"zipf_fit": fits}, {**spec, "tolerance": 0.9}, "threshold", "error") is None


def test_softmax_gains_count_the_leading_layers_above_snr0():
    from icdenoise.studies.mssa.snr import softmax_gains

    snr = [1.0, 1.5, 2.5, 1.2, 0.9, 1.1]  # above SNR₀ for layers 1-3, below at layer 4
    table = pd.DataFrame({"factor": "eta", "value": 0.1, "seed": 0, "layer": range(6), "snr": snr})
    row = softmax_gains(table).iloc[0]
    assert (row["layers_above"], row["largest_gain"], row["best_layer"], row["last_gain"]) == (3, 2.5, 2, 1.1)
    rising = softmax_gains(table.assign(snr=[1.0, 1.1, 1.2, 1.3, 1.4, 1.5])).iloc[0]
    assert rising["layers_above"] == 5


def test_the_gaussian_trend_measures_the_distance_to_sigma0_at_t_beta():
    from icdenoise.studies.alltoken.gaussian import gaussian_particles, trend_table

    block = {"mean": [0.0, 0.0], "covariance_eigenvalues": [1.0, 0.25], "sigma_z_sq": 0.5, "eta": 0.05, "tokens": 2000,
             "seed": 3, "seeds": [0], "trend_betas": [0.01, 2.0]}
    table = trend_table(block).set_index("beta")
    assert table.loc[0.01, "depth"] == 0 and table.loc[2.0, "depth"] == 10  # T_β = βσ²/2 in steps of η
    noisy = np.sort(np.linalg.eigvalsh(np.cov(gaussian_particles(block, 0)[0].double().numpy().T)))[::-1]
    assert table.loc[0.01, "largest_error"] == pytest.approx(np.abs(noisy / np.array([1.0, 0.25]) - 1).max())
    assert table.loc[2.0, "largest_error"] < table.loc[0.01, "largest_error"]  # the flow removes most of the noise σ²


def test_the_memory_term_of_theorem_2_is_the_largest_error_on_stored_tokens_per_draw():
    from icdenoise.studies.memory.claims import CLAIMS

    def row(vocabulary, estimator, n, seed, stored_error, sweep="n", alpha=2.0):
        return {"alpha": alpha, "vocabulary": vocabulary, "estimator": estimator, "sweep": sweep, "n": n, "seed": seed,
                "stored_error": stored_error}

    rows = [row(256, "seen", n, seed, error) for seed, errors in ((0, (0.0, 0.003, 0.001)), (1, (0.002, 0.0, 0.0)))
            for n, error in zip((4, 64, 1024), errors)]
    rows += [row(256, "counts", 64, 0, 0.5), row(256, "seen", 10**10, 0, 0.4, sweep="d"),  # other estimator, other sweep
             row(32768, "seen", 64, 0, 0.3), row(256, "seen", 64, 0, 0.2, alpha=1.5)]  # larger vocabulary, other α
    measure = CLAIMS["zipf_seen_d_gg_N_stored_a20"].measure
    np.testing.assert_array_equal(np.sort(measure({"zipf": pd.DataFrame(rows)}, {})), [0.002, 0.003])
