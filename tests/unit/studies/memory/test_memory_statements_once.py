"""Issue 55's restatements of the memory claims: the learning order by the gap between interpolated crossing steps
with a bootstrap over seeds, the low-rank capacity in its regime m ≫ ln N, the measurements with no verdict, each
slide statement counted once, and every claim's `needs` naming the sub-blocks it reads."""

import numpy as np
import pandas as pd
import pytest

from icdenoise.pipeline.config import load_yaml
from icdenoise.records.claims import ledger, reference_problems
from icdenoise.records.history import claim_paths
from icdenoise.records.ledger_text import row_groups, source_claims
from icdenoise.studies.memory.claims import (CLAIMS, ORDER_PROBES, crossing_gaps, crossing_step, in_low_rank_regime,
                                             smallest_mean_gap)


def test_the_crossing_step_is_interpolated_between_the_records_around_the_level():
    # by hand: 0.75 lies 0.15 of the 0.2 between the records at steps 10 (0.6) and 20 (0.8): step 10 + 7.5
    assert crossing_step([0, 10, 20, 30], [0.5, 0.6, 0.8, 0.9], 0.75) == pytest.approx(17.5)
    assert crossing_step([20, 0, 30, 10], [0.8, 0.5, 0.9, 0.6], 0.75) == pytest.approx(17.5)  # records in any order
    assert crossing_step([0, 10, 20], [0.5, 0.75, 0.9], 0.75) == pytest.approx(10.0)  # a record exactly at the level
    assert crossing_step([5, 10], [0.8, 0.9], 0.75) == 5.0  # already above at the first record
    assert np.isnan(crossing_step([0, 10, 20], [0.5, 0.6, 0.7], 0.75))  # never reached
    # the first crossing counts, not a later one after a dip
    assert crossing_step([0, 10, 20, 30, 40], [0.5, 1.0, 0.5, 0.5, 1.0], 0.75) == pytest.approx(5.0)


def _curves(crossings: dict[int, tuple[float, float, float]], optimizer: str = "adam") -> pd.DataFrame:
    """Recorded curves every 10 steps from 0 to 200 of 2-layer runs: per seed, each probe of ORDER_PROBES rises
    linearly from 0.5 at step 0 to 1 at twice its crossing of 0.75 (so it crosses 0.75 exactly there)."""
    steps = np.arange(0, 201, 10.0)
    rows = []
    for seed, crossed in crossings.items():
        for step in steps:
            rows.append({"layers": 2, "optimizer": optimizer, "seed": seed, "step": step,
                         **{probe: min(1.0, 0.5 + 0.25 * step / at) for probe, at in zip(ORDER_PROBES, crossed)}})
    rows.append({"layers": 1, "optimizer": optimizer, "seed": 0, "step": 0.0, **{probe: np.nan for probe in ORDER_PROBES}})
    return pd.DataFrame(rows)


def test_the_gaps_are_the_differences_of_the_crossing_steps_and_a_shared_record_is_no_tie():
    # seed 1: W_OV² and W_KQ² cross within the same 10-step record (between 30 and 40), 3 steps apart
    gaps = crossing_gaps(_curves({0: (20.0, 55.0, 120.0), 1: (33.0, 36.0, 90.0)}), "adam", 0.75).set_index("seed")
    assert gaps.loc[0, "first"] == pytest.approx(35.0) and gaps.loc[0, "second"] == pytest.approx(65.0)
    assert gaps.loc[1, "first"] == pytest.approx(3.0) and gaps.loc[1, "second"] == pytest.approx(54.0)
    assert crossing_gaps(_curves({0: (20.0, 55.0, 120.0)}), "sgd", 0.75).empty  # another optimizer's runs only


def _bootstrap_by_loop(gaps, resamples, seed):
    """The bootstrap of the smallest mean gap, one resample at a time (conditions in pairs, sharing their draw)."""
    rng = np.random.default_rng(seed)
    pairs = [(gaps[index], gaps[index + 1]) for index in range(0, len(gaps), 2)]
    picks = [rng.integers(0, first.size, size=(resamples, first.size)) for first, _ in pairs]
    draws = [min(min(first[pick[row]].mean(), second[pick[row]].mean()) for (first, second), pick in zip(pairs, picks))
             for row in range(resamples)]
    return np.quantile(draws, 0.025), np.quantile(draws, 0.975)


def test_the_smallest_mean_gap_and_its_bootstrap_interval_match_a_loop():
    gaps = [np.array([30.0, 40.0, 20.0]), np.array([60.0, 50.0, 70.0]), np.array([5.0, -3.0, 10.0, 8.0]), np.array([40.0, 45.0, 50.0, 35.0])]
    value, interval = smallest_mean_gap(gaps, 500, 7)
    assert value == pytest.approx(5.0)  # the mean of the third array, the smallest of the four means
    assert interval == pytest.approx(_bootstrap_by_loop(gaps, 500, 7))
    assert interval[0] < value < interval[1]
    same = [np.array([4.0, 4.0]), np.array([9.0, 9.0])]
    assert smallest_mean_gap(same, 100, 0) == (4.0, (4.0, 4.0))


def _order_frames(fresh: dict, shakespeare: dict) -> dict:
    return {"induction_order_fresh": pd.concat([_curves(fresh, "adam"), _curves(fresh, "sgd")], ignore_index=True),
            "induction_order_shakespeare_fresh": _curves(shakespeare, "sgd")}


ORDER_SPEC = {"level": 0.75, "resamples": 2000, "bootstrap_seed": 0, "inconclusive": ["interval", "not_crossed"],
              "paper_value": 0.0, "comparison": "at_least", "tolerance": 0.0, "tolerance_reason": "the order"}


def test_the_order_claim_passes_in_order_fails_out_of_order_and_waits_for_an_uncrossed_probe():
    registry = {"induction_learning_order_gap": CLAIMS["induction_learning_order_gap"]}
    claims = {"induction_learning_order_gap": ORDER_SPEC}
    in_order = {seed: (20.0 + seed, 50.0 + seed, 90.0 + 2 * seed) for seed in range(5)}
    row = ledger(registry, _order_frames(in_order, in_order), claims).iloc[0]
    assert row["verdict"] == "PASS" and row["ours_mean"] == pytest.approx(30.0)  # 50 + s − (20 + s), against 40 + s
    swapped = {seed: (50.0 + seed, 20.0 + seed, 90.0) for seed in range(5)}  # W_KQ² before W_OV² on Shakespeare's π_b
    row = ledger(registry, _order_frames(in_order, swapped), claims).iloc[0]
    assert row["verdict"] == "FAIL" and row["ours_mean"] == pytest.approx(-30.0)
    never = {**in_order, 3: (20.0, 50.0, 500.0)}  # seed 3's W_KQ¹ does not reach 0.75 by step 200
    row = ledger(registry, _order_frames(in_order, never), claims).iloc[0]
    assert row["verdict"] == "INCONCLUSIVE" and "induction_order_shakespeare_fresh sgd seed 3" in row["why_inconclusive"]


def test_the_order_claim_is_inconclusive_in_a_run_that_trains_no_fresh_seeds():
    registry = {"induction_learning_order_gap": CLAIMS["induction_learning_order_gap"]}
    row = ledger(registry, {"induction": pd.DataFrame()}, {"induction_learning_order_gap": ORDER_SPEC}).iloc[0]
    assert row["verdict"] == "INCONCLUSIVE" and "memory.induction_order.seeds is empty" in row["why_inconclusive"]
    assert np.isnan(row["ours_mean"])


@pytest.mark.parametrize("m,d,expected", [(64, 256, True), (36, 256, False), (37, 256, True), (4, 64, False), (256, 512, True),
                                          (32, 4096, False)])
def test_the_low_rank_regime_is_m_at_least_four_ln_md(m, d, expected):
    # by hand: 4 ln(36·256) = 4 · 9.129 = 36.52 > 36, and 4 ln(37·256) = 4 · 9.157 = 36.63 ≤ 37; 4 ln(32·4096) = 47.1 > 32
    assert bool(in_low_rank_regime([m], [d], 2.0)[0]) == expected
    assert in_low_rank_regime([m, m], [d, d], 1.0).tolist() == [m >= 2 * np.log(m * d)] * 2


def _low_rank_rows(points):
    return pd.DataFrame([{"memory": "low_rank", "map": "injective", "d": d, "m": m, "params_md": m * d, "seed": seed,
                          "capacity": capacity} for d, m, seed, capacity in points])


def test_the_low_rank_slope_reads_only_the_searches_in_the_regime():
    spec = {"regime_factor": 2.0, "inconclusive": ["interval", "too_few_in_regime"], "paper_value": 1.0,
            "comparison": "within_absolute", "tolerance": 0.2, "tolerance_reason": "slide 9"}
    regime = [(d, m, seed, 0.05 * m * d * (1 + 0.001 * seed)) for d in (256, 512) for m in (64, 128, 256) if m <= d
              for seed in (0, 1)]
    outside = [(256, 4, seed, 3.0) for seed in (0, 1)]  # m = 4: a handful of pairs, far below 0.05·m·d
    registry = {"low_rank_capacity_md_in_regime": CLAIMS["low_rank_capacity_md_in_regime"]}
    row = ledger(registry, {"low_rank_regime": _low_rank_rows(regime + outside)}, {"low_rank_capacity_md_in_regime": spec}).iloc[0]
    assert row["ours_mean"] == pytest.approx(1.0, abs=1e-6) and row["verdict"] == "PASS"
    few = [(256, 64, 0, 800.0), (256, 4, 0, 3.0), (256, 8, 0, 9.0)]
    row = ledger(registry, {"low_rank_regime": _low_rank_rows(few)}, {"low_rank_capacity_md_in_regime": spec}).iloc[0]
    assert row["verdict"] == "INCONCLUSIVE" and "too_few_in_regime: 1 searches" in row["why_inconclusive"]


def test_the_population_measurement_is_the_smallest_rank_recall_after_a_probes_own_step():
    rows = []
    for seed, after in ((0, (1.0, 0.93, 0.85)), (1, (0.99, 0.6, 0.9))):
        ranks = {"wov2": [0.5, after[0], after[0], after[0]], "wkq2": [0.5, 0.5, after[1], after[1]],
                 "wkq1": [0.5, 0.5, 0.5, after[2]]}
        for stage, trained in enumerate(("", "wov2", "wkq2", "wkq1")):
            rows.append({"seed": seed, "stage": stage, "trained": trained, **{f"rank_{name}": ranks[name][stage] for name in ranks}})
    values = CLAIMS["population_steps_rank_after_own_step"].measure({"population_steps": pd.DataFrame(rows)}, {})
    assert values.tolist() == [0.85, 0.6]


def _config(repo):
    return load_yaml(repo / "config" / "config.yaml")["memory"]


def test_every_memory_claim_names_the_sub_blocks_it_reads(repo):
    study = _config(repo)
    assert reference_problems(CLAIMS, study["claims"], study, "memory.claims") == []
    for claim_id, claim in CLAIMS.items():
        blocks = [block for _, block in claim.needs]
        assert blocks and all(block in study and block != "claims" for block in blocks), claim_id
        paths = claim_paths("memory", claim_id, claim.needs, ["execution"])
        assert ("memory", "claims", claim_id) in paths and all(("memory", block) in paths for block in blocks)
    assert [block for _, block in CLAIMS["induction_learning_order_gap"].needs] == ["induction", "induction_shakespeare", "induction_order"]
    assert [block for _, block in CLAIMS["zipf_seen_memory_term"].needs] == ["zipf", "zipf_confirmatory"]
    assert [block for _, block in CLAIMS["low_rank_capacity_md_in_regime"].needs] == ["capacity", "low_rank_regime"]


def test_a_sub_block_that_the_study_lacks_is_a_reference_problem():
    claim = CLAIMS["gamma_mean"]
    problems = reference_problems({"gamma_mean": claim}, {"gamma_mean": {"paper_value": 1.0}}, {"capacity": {}}, "memory.claims")
    assert problems == ["memory.claims.gamma_mean: reads the sub-block 'variance', which the study's block does not hold"]


NEW = {"induction_learning_order_gap": ("induction_probe_order_adam_every_seed", "induction_probe_order_sgd_every_seed_shakespeare"),
       "low_rank_capacity_md_in_regime": ("low_rank_capacity_md", "low_rank_capacity_md_per_d"),
       "population_steps_rank_after_own_step": ("population_steps_each_at_own_step",),
       "gamma_variance_over_slides": ("gamma_variance_bound_with_interval",),
       "zipf_seen_memory_term": ("zipf_seen_d_gg_N_stored_a15", "zipf_seen_d_gg_N_stored_a20"),
       "zipf_optimum_best_k_over_d": ("zipf_optimum_at_most_d_a15", "zipf_optimum_at_most_d_a20")}
IMPLIED = {"zipf_threshold_n_exponent_a15": "zipf_seen_n_exponent_a15", "zipf_threshold_n_exponent_a20": "zipf_seen_n_exponent_a20",
           "zipf_optimum_d_exponent_a15": "zipf_threshold_d_exponent_a15", "zipf_optimum_d_exponent_a20": "zipf_threshold_d_exponent_a20",
           "zipf_optimum_d_exponent_a20_confirmatory": "zipf_threshold_d_exponent_a20_confirmatory",
           "induction_two_layer_adam_accuracy": "induction_two_layer_sgd_accuracy_shakespeare",
           "induction_one_layer_sgd_accuracy_measured": "induction_one_layer_adam_accuracy_measured"}


def test_each_restated_reading_is_superseded_by_its_new_claim_and_each_repeat_points_to_its_parent(repo):
    claims = _config(repo)["claims"]
    for new, old in NEW.items():
        assert "superseded_by" not in claims[new] and "exploratory" not in claims[new]
        assert all(claims[name]["superseded_by"] == new for name in old)
    assert {name: claims[name].get("implied_by") for name in IMPLIED} == IMPLIED
    order = claims["induction_learning_order_gap"]
    assert order["paper_value"] == 0.0 and order["tolerance"] == 0.0


def test_every_run_that_trains_the_fresh_order_seeds_trains_at_least_five(repo):
    runs = {path.stem: load_yaml(path).get("memory", {}).get("induction_order", {}).get("seeds")
            for path in sorted((repo / "config").glob("*.yaml"))}
    trained = {run: seeds for run, seeds in runs.items() if seeds}
    assert runs["config"] == []  # the default run's 10 minutes (docs/memory_claims_as_stated.md)
    assert {"memory_full", "memory_d64", "memory_pi_o"} <= set(trained)
    assert all(len(seeds) >= 5 for run, seeds in trained.items() if run != "smoke")


def test_the_new_claims_read_seeds_no_earlier_claim_read(repo):
    from icdenoise.pipeline.config import load_yaml as load

    configs = [load(path) for path in sorted((repo / "config").glob("*.yaml")) if path.name != "claims.lock"]
    memory = [config.get("memory", {}) for config in configs]
    used_induction = {seed for block in memory for name in ("induction", "induction_shakespeare")
                      for seed in block.get(name, {}).get("seeds", [])}
    used_low_rank = {seed for block in memory for name in ("low_rank", "capacity_confirmatory") for seed in block.get(name, {}).get("seeds", [])}
    fresh = [block.get("induction_order", {}).get("seeds", []) for block in memory]
    assert all(not set(seeds) & used_induction for seeds in fresh)
    assert all(not set(block.get("low_rank_regime", {}).get("seeds", [])) & used_low_rank for block in memory)
    assert not {400, 401, 402, 403, 404} & {seed for block in memory for seed in block.get("zipf", {}).get("seeds", [])}


def test_a_row_counts_in_one_group_only():
    table = pd.DataFrame([
        {"claim": "slope", "verdict": "PASS", "exploratory": "", "superseded_by": "", "self_check": "", "implied_by": "", "registered": True},
        {"claim": "other", "verdict": "PASS", "exploratory": "x", "superseded_by": "", "self_check": "", "implied_by": "slope", "registered": True},
        {"claim": "other_confirmatory", "verdict": "PASS", "exploratory": "", "superseded_by": "", "self_check": "", "implied_by": "slope_confirmatory", "registered": True},
        {"claim": "slope_confirmatory", "verdict": "PASS", "exploratory": "", "superseded_by": "", "self_check": "", "implied_by": "", "registered": True},
        {"claim": "one_layer", "verdict": "MEASURED", "exploratory": "", "superseded_by": "", "self_check": "", "implied_by": "", "registered": True},
        {"claim": "one_layer_sgd", "verdict": "MEASURED", "exploratory": "", "superseded_by": "", "self_check": "", "implied_by": "one_layer", "registered": True},
        {"claim": "old", "verdict": "FAIL", "exploratory": "", "superseded_by": "slope", "self_check": "", "implied_by": "slope", "registered": True},
    ])
    groups = row_groups(table)
    apart = ["repeated", "measured", "superseded", "self_check", "implied"]
    counted = sum(groups[name].astype(int) for name in apart) + source_claims(table).astype(int)
    # `slope` is repeated by its twin, every other row is counted exactly once
    assert dict(zip(table["claim"], counted)) == {"slope": 1, "other": 1, "other_confirmatory": 1, "slope_confirmatory": 1,
                                                  "one_layer": 1, "one_layer_sgd": 1, "old": 1}
    assert table["claim"][groups["implied"]].tolist() == ["other", "other_confirmatory", "one_layer_sgd"]
