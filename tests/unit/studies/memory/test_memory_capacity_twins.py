"""The confirmatory twins of the capacity claims marked exploratory: each twin is its original's claim (statement,
rules) measured on the capacity search on fresh seeds (capacity_confirmatory, capacity_confirmatory_fit), and each
original still reads only the first search's tables (capacity, capacity_fit)."""

import numpy as np
import pandas as pd
import pytest

from icdenoise.records.claims import ledger
from icdenoise.studies.memory.capacity_fits import fit_table
from icdenoise.studies.memory.claims import CAPACITY_TWINS, CLAIMS

DS = [32, 64, 128, 256]


def _capacities(seeds: list[int], slope: float, gradient_over_hebbian: float) -> pd.DataFrame:
    """Capacities ∝ d^slope per map (binary, few) and seed, the one-step memory's `gradient_over_hebbian` × the Hebbian one's."""
    rows = []
    for map_name in ("binary", "few"):
        for d in DS:
            for seed in seeds:
                hebbian = 10.0 * d ** slope * (1 + 0.01 * (seed % 3))
                rows += [{"map": map_name, "memory": "hebbian", "d": d, "seed": seed, "capacity": hebbian},
                         {"map": map_name, "memory": "gradient_step", "d": d, "seed": seed, "capacity": gradient_over_hebbian * hebbian}]
    return pd.DataFrame(rows)


def _specs(tolerance: dict[str, float]) -> dict[str, dict]:
    specs = {}
    for twin, original in CAPACITY_TWINS.items():
        spec = {"paper_value": 1.0, "comparison": "within_absolute", "tolerance": tolerance[original], "tolerance_reason": "as the config's",
                "inconclusive": ["interval"]}
        specs[original], specs[twin] = spec, spec
    return specs


def test_each_twin_reads_the_fresh_search_and_each_original_the_first():
    first, fresh = _capacities([0, 1, 2], 1.0, 1.0), _capacities([200, 201, 202], 0.5, 0.5)
    frames = {"capacity": first, "capacity_fit": fit_table(first), "capacity_confirmatory": fresh,
              "capacity_confirmatory_fit": fit_table(fresh)}
    specs = _specs({"binary_capacity_d": 0.2, "few_outputs_capacity_d": 0.3, "gradient_step_equals_hebbian": 0.1})
    table = ledger(CLAIMS, frames, specs).set_index("claim")
    for twin, original in CAPACITY_TWINS.items():
        assert table.loc[original, "verdict"] == "PASS" and table.loc[twin, "verdict"] == "FAIL", (original, twin)
        assert table.loc[twin, "statement"] == table.loc[original, "statement"]
        assert CLAIMS[twin].rules == CLAIMS[original].rules and CLAIMS[twin].location == CLAIMS[original].location
    assert np.isclose(table.loc["binary_capacity_d", "ours_mean"], 1.0) and np.isclose(table.loc["binary_capacity_d_confirmatory", "ours_mean"], 0.5)
    # the originals' values are those of the first search alone, with or without the fresh tables beside it
    alone = ledger({original: CLAIMS[original] for original in CAPACITY_TWINS.values()},
                   {"capacity": first, "capacity_fit": fit_table(first)}, specs).set_index("claim")
    for original in alone.index:
        assert alone.loc[original, "ours_mean"] == table.loc[original, "ours_mean"]
        assert alone.loc[original, "n_values"] == table.loc[original, "n_values"]
    assert table.loc["gradient_step_equals_hebbian_confirmatory", "n_values"] == 2 * len(DS) * 3  # 2 maps × d × the 3 fresh seeds


def test_the_fresh_search_is_fitted_against_d_alone():
    fits = fit_table(_capacities([200, 201], 1.0, 1.0))
    assert set(fits["against"]) == {"d"} and len(fits) == 4
    assert np.allclose(fits["slope"], 1.0, atol=0.02)


def test_the_twins_count_as_confirmatory_and_their_originals_once_as_the_twins(repo):
    """With the config's own blocks: a twin has no `exploratory`, names its original in its tolerance_reason and
    shares its bound; registered, the headline counts the twins as confirmatory and the originals apart."""
    from icdenoise.pipeline.config import load_yaml
    from icdenoise.records.ledger_text import headline

    config = load_yaml(repo / "config" / "config.yaml")["memory"]
    specs = {}
    for twin, original in CAPACITY_TWINS.items():
        block, first = config["claims"][twin], config["claims"][original]
        assert "exploratory" not in block and first["exploratory"]
        assert f"confirmatory twin of {original}" in block["tolerance_reason"]
        assert {key: block[key] for key in ("paper_value", "comparison", "tolerance", "inconclusive")} == \
               {key: first[key] for key in ("paper_value", "comparison", "tolerance", "inconclusive")}
        specs[original], specs[twin] = first, block
    assert not set(config["capacity_confirmatory"]["seeds"]) & set(config["capacity"]["seeds"] + config["low_rank"]["seeds"])
    first, fresh = _capacities([0, 1, 2], 1.0, 1.0), _capacities([200, 201, 202], 1.0, 1.0)
    frames = {"capacity": first, "capacity_fit": fit_table(first), "capacity_confirmatory": fresh,
              "capacity_confirmatory_fit": fit_table(fresh)}
    table = ledger(CLAIMS, frames, specs).assign(registered=True)
    text = headline(table)
    assert "Registered, confirmatory: 3 pass, 0 fail, 0 inconclusive." in text
    assert text.startswith("3 claims of the source.") and "Registered, exploratory" not in text
    assert "Repeated by a confirmatory twin and counted as the twin: 3 pass, 0 fail, 0 inconclusive." in text


def test_a_capacity_twin_never_falls_back_on_the_first_search():
    first = _capacities([0, 1, 2], 1.0, 1.0)
    with pytest.raises(KeyError, match="capacity"):
        CLAIMS["gradient_step_equals_hebbian_confirmatory"].measure({"capacity": first, "capacity_fit": fit_table(first)}, {})
