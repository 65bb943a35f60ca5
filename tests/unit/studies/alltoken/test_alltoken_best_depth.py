"""depth_l_star_is_best_over_contexts: the best depth at the largest N over L*, with the 95% range of that argmin
under a bootstrap over the contexts; its point value is depth_l_star_is_best's, read from the summarised table."""

import numpy as np
import pandas as pd
import yaml

from icdenoise.records.claims import ledger
from icdenoise.studies.alltoken.claims import CLAIMS
from icdenoise.studies.alltoken.mse import summarise

DEPTHS = np.arange(0, 401, 10)
THEORY = 200.0
NEW, OLD = "depth_l_star_is_best_over_contexts", "depth_l_star_is_best"


def per_context(minima: list[float], noise: float = 0.0, seed: int = 0) -> pd.DataFrame:
    """Two-stage MSE curves, one per context, each a parabola in depth with its minimum at `minima[i]`, plus
    (seeded) noise, at N = 8000; and a smaller N whose curves would point elsewhere."""
    rng = np.random.default_rng(seed)
    rows = []
    for tokens, shift in ((8000, 0.0), (50, 150.0)):
        for context, minimum in enumerate(minima):
            curve = 0.5 + ((DEPTHS - minimum - shift) / 400.0) ** 2 + noise * rng.standard_normal(len(DEPTHS))
            for estimator, values in (("two_stage", curve), ("stage1_only", curve[::-1].copy()), ("bayes", np.full(len(DEPTHS), 0.3))):
                rows.append(pd.DataFrame({"N": tokens, "context": context, "depth": DEPTHS, "estimator": estimator,
                                          "mse_over_sigma2": values}))
    return pd.concat(rows, ignore_index=True).assign(beta=20.0, eta=0.025, sigma_z_sq=0.5, theory_depth=THEORY)


def frames(table: pd.DataFrame) -> dict:
    return {"mse_per_context": table, "mse_by_depth": summarise(table, 200)[1]}


def specs(repo) -> dict:
    claims = yaml.safe_load((repo / "config" / "config.yaml").read_text())["alltoken"]["claims"]
    return {name: claims[name] for name in (OLD, NEW)}


def test_the_point_value_is_the_old_claims_and_an_agreed_minimum_has_no_spread(repo):
    table = ledger({name: CLAIMS[name] for name in (OLD, NEW)}, frames(per_context([200.0] * 10)), specs(repo)).set_index("claim")
    assert table.loc[NEW, "ours_mean"] == table.loc[OLD, "ours_mean"] == 1.0
    assert (table.loc[NEW, "interval_low"], table.loc[NEW, "interval_high"]) == (1.0, 1.0)
    assert table.loc[NEW, "verdict"] == "PASS"


def test_contexts_that_disagree_leave_it_undecided_where_the_old_claim_failed(repo):
    minima = [200.0] * 5 + [340.0] * 6  # the mean's argmin, 280, lies past 1.25 L*; a resample can land on either side
    table = ledger({name: CLAIMS[name] for name in (OLD, NEW)}, frames(per_context(minima)), specs(repo)).set_index("claim")
    low, high = table.loc[NEW, ["interval_low", "interval_high"]]
    assert low <= 1.25 < high, (low, high)
    assert table.loc[OLD, "verdict"] == "FAIL" and table.loc[NEW, "verdict"] == "INCONCLUSIVE"
    assert "reaches both sides" in table.loc[NEW, "why_inconclusive"]


def test_a_minimum_every_context_places_far_from_l_star_fails(repo):
    table = ledger({NEW: CLAIMS[NEW]}, frames(per_context([300.0] * 10, noise=1e-4)), specs(repo)).set_index("claim")
    assert table.loc[NEW, "verdict"] == "FAIL" and table.loc[NEW, "interval_low"] > 1.25
    mean_curve = per_context([300.0] * 10, noise=1e-4).query("N == 8000 and estimator == 'two_stage'").groupby("depth")["mse_over_sigma2"].mean()
    assert table.loc[NEW, "ours_mean"] == mean_curve.idxmin() / THEORY
