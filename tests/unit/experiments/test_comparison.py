"""Runs side by side: every leaderboard row and every ledger verdict of each run, counted per study."""

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
    assert f"| linear | linear | {0.4 / 0.3:.3f} | {0.8 / 0.3:.3f} |" in text
