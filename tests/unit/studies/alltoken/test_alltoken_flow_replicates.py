"""The particle flow from several seeds and the cluster claim over them: the replicate table is the figure's
flow at L*, and the claim's verdict is the mean over seeds with its interval, not one draw's."""

import numpy as np
import pandas as pd
import pytest

from icdenoise.records.claims import ledger
from icdenoise.studies.alltoken.claims import CLAIMS, massive_clusters
from icdenoise.studies.alltoken.flow import flow_replicates_table, particle_flow_table

BLOCK = {"centres": [[-2.0], [2.0]], "sigma_z_sq": 0.49, "tokens": 30, "betas": [1.0, 20.0], "layers_per_T_star": 8,
         "max_depth": 8, "cluster_gap": 0.1, "seed": 11, "replicate_seeds": [11, 12]}
SPEC = {"beta": 20.0, "cluster_gap": 0.1, "mass_floor": 0.05, "paper_value": 3.0, "comparison": "at_least", "tolerance": 0.0,
        "tolerance_reason": "three clusters or more", "inconclusive": ["interval", "smaller_beta"], "seeds": [0, 1, 2, 3]}


def test_a_replicate_from_the_figures_seed_is_the_figures_flow_at_l_star():
    replicates = flow_replicates_table(BLOCK)
    figure = particle_flow_table(BLOCK)
    for beta in BLOCK["betas"]:
        ours = replicates[(replicates["seed"] == 11) & (replicates["beta"] == beta)]["position"].to_numpy()
        theirs = figure[(figure["beta"] == beta) & (figure["depth"] == 8)]["position"].to_numpy()
        np.testing.assert_array_equal(ours, theirs)
    other = replicates[(replicates["seed"] == 12) & (replicates["beta"] == 20.0)]["position"].to_numpy()
    assert not np.array_equal(other, replicates[(replicates["seed"] == 11) & (replicates["beta"] == 20.0)]["position"].to_numpy())
    assert set(replicates["depth"]) == {8}


def _flows(counts: dict[float, list[int]], first_seed: int = 0) -> pd.DataFrame:
    """Replicate flows whose particles at L* form `counts[β][i]` equal clusters, 2 apart, for seed first_seed + i."""
    rows = []
    for beta, per_seed in counts.items():
        for seed, clusters in enumerate(per_seed, start=first_seed):
            positions = np.repeat(2.0 * np.arange(clusters), 60 // clusters)
            rows.append(pd.DataFrame({"seed": seed, "beta": beta, "depth": 40, "particle": np.arange(len(positions)),
                                      "position": positions}))
    return pd.concat(rows, ignore_index=True)


def _verdict(counts):
    table = ledger({"flow_beta20_premature_clusters_over_seeds": CLAIMS["flow_beta20_premature_clusters_over_seeds"]},
                   {"flow_replicates": _flows(counts)}, {"flow_beta20_premature_clusters_over_seeds": SPEC})
    return table.loc[0, "verdict"], table.loc[0, "ours_mean"], table.loc[0, "why_inconclusive"]


def test_the_claim_is_decided_by_the_seeds_mean_and_its_interval():
    assert massive_clusters(np.repeat([0.0, 2.0, 4.0], 20), 0.1, 0.05) == 3
    assert _verdict({1.0: [2, 2, 2, 2], 20.0: [4, 5, 4, 5]})[:2] == ("PASS", 4.5)
    assert _verdict({1.0: [1, 1, 1, 1], 20.0: [2, 2, 2, 2]})[:2] == ("FAIL", 2.0)
    verdict, mean, why = _verdict({1.0: [1, 1, 1, 1], 20.0: [6, 2, 2, 2]})  # one seed with clusters: mean 3, wide interval
    assert verdict == "INCONCLUSIVE" and mean == 3.0 and "interval" in why
    verdict, _, why = _verdict({1.0: [5, 5, 5, 5], 20.0: [4, 5, 4, 5]})
    assert verdict == "INCONCLUSIVE" and "smaller β" in why


def test_each_claim_over_seeds_reads_only_its_own_seeds():
    """The table holds the original's seeds 0-3 and the confirmatory twin's fresh seeds 100-103: the original's
    value is that of its seeds alone (as before the twin's were added), the twin's that of its own."""
    old, fresh = {1.0: [2, 2, 2, 2], 20.0: [4, 5, 4, 5]}, {1.0: [1, 1, 1, 1], 20.0: [2, 2, 2, 2]}
    both = pd.concat([_flows(old), _flows(fresh, first_seed=100)], ignore_index=True)
    specs = {"flow_beta20_premature_clusters_over_seeds": SPEC,
             "flow_beta20_premature_clusters_confirmatory": {**SPEC, "seeds": [100, 101, 102, 103]}}
    table = ledger({claim_id: CLAIMS[claim_id] for claim_id in specs}, {"flow_replicates": both}, specs).set_index("claim")
    assert table.loc["flow_beta20_premature_clusters_over_seeds", ["verdict", "ours_mean", "n_values"]].tolist() == ["PASS", 4.5, 4]
    assert table.loc["flow_beta20_premature_clusters_confirmatory", ["verdict", "ours_mean", "n_values"]].tolist() == ["FAIL", 2.0, 4]
    alone = ledger({"flow_beta20_premature_clusters_over_seeds": CLAIMS["flow_beta20_premature_clusters_over_seeds"]},
                   {"flow_replicates": _flows(old)}, {"flow_beta20_premature_clusters_over_seeds": SPEC})
    assert alone.loc[0, "ours_mean"] == 4.5 and alone.loc[0, "interval_low"] == table.loc["flow_beta20_premature_clusters_over_seeds", "interval_low"]
    # the smaller_beta rule reads the claim's own seeds too: β = 1 has 5 clusters on the fresh seeds only
    louder = pd.concat([_flows(old), _flows({1.0: [5, 5, 5, 5], 20.0: [4, 5, 4, 5]}, first_seed=100)], ignore_index=True)
    table = ledger({claim_id: CLAIMS[claim_id] for claim_id in specs}, {"flow_replicates": louder}, specs).set_index("claim")
    assert table.loc["flow_beta20_premature_clusters_over_seeds", "verdict"] == "PASS"
    assert "smaller β" in table.loc["flow_beta20_premature_clusters_confirmatory", "why_inconclusive"]


def test_a_claim_over_seeds_refuses_a_table_without_its_seeds():
    with pytest.raises(ValueError, match=r"no flow from seeds \[7\]"):
        CLAIMS["flow_beta20_premature_clusters_over_seeds"].measure({"flow_replicates": _flows({20.0: [3, 3]})}, {**SPEC, "seeds": [0, 7]})


def test_the_configs_twin_reads_fresh_seeds_and_the_original_its_own(repo):
    from icdenoise.pipeline.config import load_yaml

    study = load_yaml(repo / "config" / "config.yaml")["alltoken"]
    original = study["claims"]["flow_beta20_premature_clusters_over_seeds"]
    twin = study["claims"]["flow_beta20_premature_clusters_confirmatory"]
    assert original["seeds"] == list(range(1000, 1020)) and twin["seeds"] == list(range(2000, 2020))
    assert set(original["seeds"] + twin["seeds"]) == set(study["particle_flow"]["replicate_seeds"])
    assert "exploratory" not in twin and original["exploratory"]
    assert {key: value for key, value in twin.items() if key not in ("seeds", "tolerance_reason")} == \
           {key: value for key, value in original.items() if key not in ("seeds", "tolerance_reason", "exploratory")}
    assert CLAIMS["flow_beta20_premature_clusters_confirmatory"] is CLAIMS["flow_beta20_premature_clusters_over_seeds"]
