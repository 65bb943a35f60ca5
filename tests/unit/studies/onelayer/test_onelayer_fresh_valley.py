"""fig6_*_trained_in_valley_fresh (docs/claims_as_stated.md): Fig. 6's landscape on the evaluation's fresh prompts, not on
the training prompts. The fresh scan, chunked, against the training-prompt scan of the same prompts in one piece and
against the loss of x̂ = α X softmax(β Xᵀ x̃) written out; the claims' measure against ratios set by hand."""

import numpy as np
import pandas as pd
import pytest
import yaml
from scipy.special import softmax

from icdenoise.maths.cases import make_case
from icdenoise.records.claims import ledger
from icdenoise.studies.onelayer.claims import CLAIMS
from icdenoise.studies.onelayer.landscape import fresh_landscape_table, landscape_table

BLOCK = {"task": "gmm", "n": 4, "K": 2, "radius": 1.0, "sigma0_sq": 0.02, "corruption": {"kind": "query", "sigma_z_sq": 0.1}, "L": 12}
FIG6 = {"model": "softmax", "grid_size": 5, "alpha_range": [-2.0, 2.0], "beta_range": [-8.0, 8.0]}
TRAINED = pd.DataFrame({"seed": [0, 1, 2], "alpha": [0.9, 1.1, -0.3], "beta": [4.5, 7.3, -2.0]})
NEW = {"fig6_sphere_trained_in_valley_fresh": "fig6_sphere_trained_in_valley",
       "fig6_gmm_trained_in_valley_fresh": "fig6_gmm_trained_in_valley"}


def test_the_fresh_scan_in_chunks_is_the_scan_of_the_same_prompts_in_one_piece():
    prompts = make_case(BLOCK).sample(23, BLOCK["L"], 5)  # prompts 0..22 of seed 5, as evaluate_bayes draws them
    whole = landscape_table("gmm", prompts.context, prompts.query, prompts.target, 0.1, TRAINED, FIG6)
    fresh = fresh_landscape_table("gmm", BLOCK, TRAINED, FIG6, 23, 5, chunk_size=7)  # chunks of 7, 7, 7 and 2
    assert (fresh["n_prompts"] == 23).all()
    pd.testing.assert_frame_equal(fresh.drop(columns="n_prompts"), whole, check_exact=False, rtol=1e-10)
    assert fresh.loc[fresh["kind"] == "minimum", "mse"].iloc[0] == fresh.loc[fresh["kind"] == "grid", "mse"].min()


def test_a_trained_point_is_the_loss_of_its_estimate_written_out():
    fresh = fresh_landscape_table("gmm", BLOCK, TRAINED, FIG6, 9, 11, chunk_size=4)
    prompts = make_case(BLOCK).sample(9, BLOCK["L"], 11)
    for row in TRAINED.itertuples():
        weights = softmax(row.beta * np.einsum("pln,pn->pl", prompts.context, prompts.query), axis=1)
        estimate = row.alpha * np.einsum("pl,pln->pn", weights, prompts.context)
        expected = np.mean((estimate - prompts.target) ** 2)
        mine = fresh[(fresh["kind"] == "trained") & (fresh["seed"] == row.seed)]
        assert mine["mse"].iloc[0] == pytest.approx(expected, rel=1e-10)
        assert (mine["alpha"].iloc[0], mine["beta"].iloc[0]) == (row.alpha, row.beta)
    heuristic = fresh[fresh["kind"] == "heuristic"].iloc[0]
    assert (heuristic["alpha"], heuristic["beta"]) == (1.0, pytest.approx(10.0))  # β = 1/σ_z²


def _landscape(case: str, minimum: float, trained: list[float]) -> pd.DataFrame:
    """A landscape table with a grid whose lowest value is `minimum` and the trained points' MSEs (seeds in reverse
    order, which the measure must sort)."""
    rows = [{"case": case, "kind": "grid", "seed": -1, "mse": value} for value in (minimum, 2 * minimum, 3 * minimum)]
    rows.append({"case": case, "kind": "minimum", "seed": -1, "mse": minimum})
    rows.append({"case": case, "kind": "heuristic", "seed": -1, "mse": 1.5 * minimum})
    rows += [{"case": case, "kind": "trained", "seed": seed, "mse": mse} for seed, mse in reversed(list(enumerate(trained)))]
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def config(repo):
    return yaml.safe_load((repo / "config" / "config.yaml").read_text())["onelayer"]["claims"]


def test_the_fresh_claims_read_the_fresh_landscape_and_keep_their_predecessors_tests(config):
    fresh = pd.concat([_landscape("sphere", 0.2, [0.204, 0.206, 0.202, 0.205]), _landscape("gmm", 0.5, [0.8, 0.81, 0.79, 0.8])])
    training = pd.concat([_landscape("sphere", 0.2, [0.2, 0.2, 0.2, 0.2]), _landscape("gmm", 0.5, [0.5, 0.5, 0.5, 0.5])])
    table = ledger(CLAIMS, {"fig6": training, "fig6_fresh": fresh}, {claim: config[claim] for claim in [*NEW, *NEW.values()]}).set_index("claim")
    np.testing.assert_allclose(CLAIMS["fig6_sphere_trained_in_valley_fresh"].measure({"fig6_fresh": fresh}, config["fig6_sphere_trained_in_valley_fresh"]),
                               [1.02, 1.03, 1.01, 1.025])
    assert table.loc["fig6_sphere_trained_in_valley_fresh", "verdict"] == "PASS"
    assert table.loc["fig6_gmm_trained_in_valley_fresh", "verdict"] == "FAIL"  # 1.6 × the fresh minimum
    assert table.loc[list(NEW.values()), "verdict"].eq("PASS").all()  # the training-prompt readings, at 1
    for new, old in NEW.items():
        assert config[old]["superseded_by"] == new and table.loc[old, "superseded_by"] == new
        assert "exploratory" in config[new]  # the reading came after the training-prompt results
        for key in ("case", "paper_value", "comparison", "tolerance", "inconclusive"):
            assert config[new][key] == config[old][key], key


def test_seeds_that_straddle_the_bound_leave_it_undecided(config):
    fresh = _landscape("sphere", 0.2, [0.20, 0.24, 0.21, 0.235])  # ratios 1, 1.2, 1.05, 1.175: mean 1.106
    table = ledger(CLAIMS, {"fig6_fresh": fresh}, {"fig6_sphere_trained_in_valley_fresh": config["fig6_sphere_trained_in_valley_fresh"]})
    assert table.loc[0, "verdict"] == "INCONCLUSIVE" and "reaches both sides" in table.loc[0, "why_inconclusive"]
