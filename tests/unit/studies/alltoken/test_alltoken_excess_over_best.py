"""depth_l_star_excess_over_best_measured and stage2_beta_c_excess_over_best_measured (docs/claims_as_stated.md): the loss
at the explainer's point (L*, β_c = 1/σ²) over the best of the grid, minus 1, with a parametric bootstrap over the
contexts, against excesses computed by hand from hand-built curves; the interval's coverage over simulated contexts."""

import numpy as np
import pandas as pd
import pytest
import yaml

from icdenoise.records.claims import ledger
from icdenoise.records.ledger_text import headline
from icdenoise.studies.alltoken.claims import CLAIMS

DEPTHS = np.arange(0, 401, 10)
THEORY = 200.0
DEPTH, BETA_C = "depth_l_star_excess_over_best_measured", "stage2_beta_c_excess_over_best_measured"
SCAN = np.array([0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0, 4.0, 6.0])


def per_context(curves: np.ndarray) -> pd.DataFrame:
    """mse_per_context at N = 8000 from `curves` (rows contexts, columns DEPTHS) for the two-stage estimator, beside a
    smaller N and other estimators whose curves put their best elsewhere (the measure must ignore them)."""
    rows = []
    for tokens, scale in ((8000, 1.0), (50, -1.0)):
        for context, curve in enumerate(curves):
            other = curve[::-1].copy()
            for estimator, values in (("two_stage", curve if scale > 0 else other), ("stage1_only", other), ("bayes", np.full(len(DEPTHS), 0.3))):
                rows.append(pd.DataFrame({"N": tokens, "context": context, "depth": DEPTHS, "estimator": estimator, "mse_over_sigma2": values}))
    return pd.concat(rows, ignore_index=True).assign(beta=20.0, eta=0.025, sigma_z_sq=0.5, theory_depth=THEORY)


def parabola(minimum: float, floor: float = 0.5) -> np.ndarray:
    return floor + ((DEPTHS - minimum) / 400.0) ** 2


def scan(curves: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame([{"N": 1000, "context": context, "beta_c_sigma2": ratio, "beta_c": ratio / 0.5, "mse_over_sigma2": value}
                         for context, curve in enumerate(curves) for ratio, value in zip(SCAN, curve)])


@pytest.fixture(scope="module")
def config(repo):
    return yaml.safe_load((repo / "config" / "config.yaml").read_text())["alltoken"]["claims"]


def test_the_excess_at_l_star_is_the_mean_curves_value_there_over_its_lowest():
    # three contexts with their best at 250 and floors 0.4, 0.5, 0.6: the mean curve is 0.5 + ((L − 250)/400)²
    curves = np.array([parabola(250.0, floor) for floor in (0.4, 0.5, 0.6)])
    measurement = CLAIMS[DEPTH].measure({"mse_per_context": per_context(curves)}, {})
    assert measurement.values == pytest.approx([(50 / 400) ** 2 / 0.5])  # 0.03125: L* is 3% worse than the best
    low, high = measurement.interval
    assert 0 < low < measurement.values[0] < high  # the floors differ: the ratio has a spread
    assert "parametric bootstrap" in measurement.method and "3 contexts" in measurement.method


def test_l_star_at_the_best_gives_zero_and_contexts_that_agree_give_no_spread():
    measurement = CLAIMS[DEPTH].measure({"mse_per_context": per_context(np.array([parabola(200.0)] * 4))}, {})
    assert measurement.values == pytest.approx([0.0]) and measurement.interval == pytest.approx((0.0, 0.0))


def test_a_best_elsewhere_is_a_smooth_excess_not_an_argmin():
    # moving the best from 200 to 210 (one grid step) moves the excess by (10/400)²/0.5, not by a whole grid step
    near, far = (CLAIMS[DEPTH].measure({"mse_per_context": per_context(np.array([parabola(m), parabola(m) + 0.01]))}, {}).values[0]
                 for m in (210.0, 300.0))
    assert near == pytest.approx((10 / 400) ** 2 / 0.505) and far == pytest.approx((100 / 400) ** 2 / 0.505)


def smooth_contexts(rng, contexts: int) -> np.ndarray:
    """Per-context curves as a flow gives them, smooth in depth: each context's parabola has its own level, best depth
    and curvature."""
    best, level, curvature = rng.normal(260, 20, (contexts, 1)), rng.normal(0, 0.02, (contexts, 1)), rng.normal(1, 0.1, (contexts, 1))
    return 0.5 + level + curvature * ((DEPTHS - best) / 400.0) ** 2


def test_the_interval_covers_the_true_excess_about_95_percent_of_the_time():
    expected_curve = smooth_contexts(np.random.default_rng(1), 100_000).mean(axis=0)  # the curve's expectation
    expected = expected_curve[DEPTHS == THEORY][0] / expected_curve.min() - 1  # about 0.045
    rng, covered = np.random.default_rng(7), []
    for _ in range(200):
        curves = smooth_contexts(rng, 6)
        table = pd.DataFrame({"N": 8000, "estimator": "two_stage", "context": np.repeat(np.arange(6), len(DEPTHS)),
                              "depth": np.tile(DEPTHS, 6), "mse_over_sigma2": curves.ravel(), "theory_depth": THEORY})
        low, high = CLAIMS[DEPTH].measure({"mse_per_context": table}, {}).interval
        covered.append(low <= expected <= high)
    assert 0.9 <= np.mean(covered) <= 0.99, np.mean(covered)


def test_one_context_has_no_interval_and_a_grid_without_l_star_is_refused():
    assert CLAIMS[DEPTH].measure({"mse_per_context": per_context(np.array([parabola(250.0)]))}, {}).interval is None
    table = per_context(np.array([parabola(250.0)] * 2)).assign(theory_depth=205.0)
    with pytest.raises(ValueError, match="no single point at 205"):
        CLAIMS[DEPTH].measure({"mse_per_context": table}, {})


def test_the_excess_at_one_over_sigma2_is_the_scans_value_there_over_its_lowest():
    log_scan = np.log(SCAN)
    curves = np.array([0.3 + level + 0.1 * (log_scan - np.log(0.75)) ** 2 for level in (-0.05, 0.0, 0.05)])
    measurement = CLAIMS[BETA_C].measure({"cross_bandwidth": scan(curves)}, {})
    assert measurement.values == pytest.approx([0.1 * np.log(1 / 0.75) ** 2 / 0.3])  # the best on the grid is 0.75
    assert measurement.interval[0] < measurement.values[0] < measurement.interval[1]


def test_the_new_claims_report_with_no_verdict_and_supersede_the_argmin_readings(config):
    curves = np.array([parabola(250.0, floor) for floor in (0.45, 0.5, 0.55)])
    frames = {"mse_per_context": per_context(curves), "cross_bandwidth": scan(np.array([0.3 + 0.1 * np.log(SCAN) ** 2] * 3))}
    table = ledger(CLAIMS, frames, {claim: config[claim] for claim in (DEPTH, BETA_C)}).set_index("claim")
    assert table["verdict"].eq("MEASURED").all() and table["paper_value"].isna().all()
    assert table.loc[DEPTH, "ours_mean"] == pytest.approx(0.03125) and table.loc[BETA_C, "ours_mean"] == pytest.approx(0.0)
    assert config["depth_l_star_is_best_over_contexts"]["superseded_by"] == DEPTH
    assert config["stage2_beta_c_is_one_over_sigma2"]["superseded_by"] == BETA_C
    assert config["depth_l_star_is_best"]["superseded_by"] == "depth_l_star_is_best_over_contexts"  # the older link stays
    assert "Measured with no verdict (the source gives no number to test): 2." in headline(table.reset_index())
