"""Runs side by side: the settings that differ, every leaderboard row and every ledger verdict of each run, the
rows that differ first and the equal ones folded away."""

import pandas as pd

from icdenoise.experiments.comparison import comparison_table, markdown, verdict_counts


def board(scale):
    return pd.DataFrame({"case": ["linear", "linear", "gmm"], "estimator": ["oracle", "linear", "oracle"], "mse": [0.3, 0.4 * scale, 0.1],
                         "ratio_to_bayes": [1.0, 0.4 * scale / 0.3, 1.0]})


def ledger(passed):
    return pd.DataFrame({"claim": ["a", "b", "c"][: len(passed)], "ours_mean": [1.0] * len(passed), "passed": passed})


def test_both_runs_rows_are_stacked_and_verdicts_counted():
    table = comparison_table({"paper": board(1.0), "mine": board(2.0)},
                             [("paper", "core", ledger([True, True, False])), ("mine", "core", ledger([True, False, False])),
                              ("mine", "extra", pd.DataFrame({"claim": ["x"], "ours_mean": [0.0], "verdict": ["INCONCLUSIVE"]}))])
    assert len(table) == 6 + 3 + 3 + 1
    mine = table[(table["run"] == "mine") & (table["kind"] == "leaderboard")].set_index("estimator")
    assert mine.loc["linear", "ratio_to_bayes"] == 0.8 / 0.3
    counts = verdict_counts(table).set_index(["run", "study"]).fillna(0)
    assert counts.loc[("paper", "core"), ["claims", "PASS", "FAIL"]].tolist() == [3, 2, 1]
    assert counts.loc[("mine", "extra"), ["claims", "INCONCLUSIVE"]].tolist() == [1, 1]
    text = markdown(table)
    assert "| `paper` | core | 3 | 2 | 1 | 0 |" in text and "| `mine` | extra | 1 | 0 | 0 | 1 |" in text
    assert f"| linear | linear | {0.4 / 0.3:.4g} | {0.8 / 0.3:.4g} |" in text
    assert "1 of 3 leaderboard rows differ between the runs." in text
    assert "<details><summary>The 2 leaderboard rows equal in every run</summary>" in text
    differ, folded = text.split("<details><summary>The 2 leaderboard rows")
    assert "| linear | linear |" in differ and "| linear | oracle |" not in differ and "| linear | oracle | 1 | 1 |" in folded
    assert "2 of 4 claims' verdicts differ between the runs." in text  # b: PASS/FAIL; x: only in mine


def test_the_settings_that_differ_lead_key_by_key_and_how_jobs_ran_is_left_out():
    paper = {"run": {"name": "paper"}, "cases": {"sphere": {"n": 16, "corruption": {"sigma_z_sq": 0.1}}},
             "training": {"lr": 0.01, "seeds": [0, 1]}, "execution": {"training": {"device": "cpu"}}, "comparison": {"runs": ["mine"]}}
    mine = {"run": {"name": "mine"}, "cases": {"sphere": {"n": 16, "corruption": {"sigma_z_sq": 0.2}}},
            "training": {"lr": 0.01, "seeds": [0, 1, 2]}, "execution": {"training": {"device": "cuda"}}, "comparison": {"runs": []}}
    table = comparison_table({"paper": board(1.0), "mine": board(1.0)}, [], {"paper": paper, "mine": mine})
    settings = table[table["kind"] == "setting"]
    assert sorted(settings["key"].unique()) == ["cases.sphere.corruption.sigma_z_sq", "training.seeds"]
    text = markdown(table)
    assert text.index("## Settings that differ") < text.index("## Leaderboards")
    assert "| cases.sphere.corruption.sigma_z_sq | 0.1 | 0.2 |" in text and "| training.seeds | [0, 1] | [0, 1, 2] |" in text
    assert "0 of 3 leaderboard rows differ between the runs." in text and "comparison.ledgers: true" in text


def test_numbers_equal_as_the_table_shows_them_are_no_difference():
    mine = board(1.0)
    mine.loc[2, "ratio_to_bayes"] = 1.0000000000000002  # gmm | oracle: a rounding apart, shown as 1 in both runs
    mine.loc[0, "ratio_to_bayes"] = 1.001  # linear | oracle: shown as 1.001, a difference
    text = markdown(comparison_table({"paper": board(1.0), "mine": mine}, []))
    assert "1 of 3 leaderboard rows differ between the runs." in text
    differ, folded = text.split("<details><summary>The 2 leaderboard rows")
    assert "| linear | oracle | 1 | 1.001 |" in differ and "| gmm | oracle | 1 | 1 |" in folded


def test_an_empty_mapping_another_run_fills_is_no_setting_of_its_own():
    paper = {"leaderboard": {"extra_runs": {}, "cases": ["linear"]}}
    mine = {"leaderboard": {"extra_runs": {"gmm_all_tokens": ["stacked"]}, "cases": ["linear"]}}
    settings = comparison_table({"paper": board(1.0), "mine": board(1.0)}, [], {"paper": paper, "mine": mine})
    settings = settings[settings["kind"] == "setting"]
    assert settings[["run", "key", "value"]].values.tolist() == [["paper", "leaderboard.extra_runs.gmm_all_tokens", "–"],
                                                                 ["mine", "leaderboard.extra_runs.gmm_all_tokens", "[stacked]"]]
    unfilled = comparison_table({"paper": board(1.0)}, [], {"paper": paper, "mine": {"leaderboard": {"cases": ["linear"]}}})
    assert unfilled[unfilled["kind"] == "setting"]["value"].tolist() == ["{}", "–"]  # no run fills it: a difference


def test_the_figures_ratio_axis_is_logarithmic_and_draws_every_row_even_without_a_ratio():
    """A case whose Bayes MSE is tiny puts ratios at 1e5 beside others near 1: the axis is log, spans every finite
    ratio, and a row without a ratio (Bayes exact: NaN), which once turned the axis linear, is drawn at its left edge."""
    import matplotlib.pyplot as plt
    import numpy as np

    from icdenoise.experiments.plots.comparison import ratio_scale, render

    wide = pd.DataFrame({"case": ["lowrank"] * 2, "estimator": ["oracle", "zero"], "mse": [5e-6, 0.5], "ratio_to_bayes": [1.0, 1e5]})
    exact = wide.assign(ratio_to_bayes=np.nan)
    table = comparison_table({"paper": pd.concat([board(1.0), wide]), "mine": pd.concat([board(2.0), exact])},
                             [("paper", "core", ledger([True, False]))])
    figure = render({"comparison": table})
    left = figure.axes[0]
    assert left.get_xscale() == "log"
    low, high = left.get_xlim()
    assert low <= 1.0 and high >= 1e5
    drawn = [len(collection.get_offsets()) for collection in left.collections]
    assert sum(drawn) == 2 * 5  # every row of both runs: 5 + 3 with a ratio, 2 without
    assert "no ratio (Bayes MSE exact)" in " ".join(text.get_text() for text in left.get_legend().get_texts())
    plt.close(figure)
    assert ratio_scale(pd.Series([0.5, 1e5, np.nan])) == ("log", {})
    assert ratio_scale(pd.Series([0.0, 2.0, 1e5])) == ("symlog", {"linthresh": 2.0})  # a zero ratio is drawn, not dropped
