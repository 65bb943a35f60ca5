"""Named runs side by side: their leaderboards and their ledgers' verdicts stacked into one tidy table.

Rows of kind ``leaderboard``: run, case, estimator, mse (MSE/n on the run's fresh prompts), ratio_to_bayes.
Rows of kind ``claim``: run, study, claim, ours_mean (the value the ledger measured), verdict. A run that
lacks a case, an estimator or a study simply has no row for it.
"""

from __future__ import annotations

import pandas as pd

COLUMNS = ["run", "kind", "study", "case", "estimator", "claim", "mse", "ratio_to_bayes", "ours_mean", "verdict"]


def verdicts(ledger: pd.DataFrame) -> pd.Series:
    """A ledger's verdict per claim: its own ``verdict`` column where it has one, else PASS or FAIL."""
    if "verdict" in ledger:
        return ledger["verdict"].astype(str)
    return ledger["passed"].map({True: "PASS", False: "FAIL"})


def comparison_table(leaderboards: dict[str, pd.DataFrame], ledgers: list[tuple[str, str, pd.DataFrame]]) -> pd.DataFrame:
    """leaderboards: run → its leaderboard table; ledgers: (run, study, ledger table) triples."""
    frames = [
        board[["case", "estimator", "mse", "ratio_to_bayes"]].assign(run=run, kind="leaderboard")
        for run, board in leaderboards.items()
    ]
    frames += [
        ledger[["claim", "ours_mean"]].assign(run=run, kind="claim", study=study, verdict=verdicts(ledger))
        for run, study, ledger in ledgers
    ]
    return pd.concat(frames, ignore_index=True).reindex(columns=COLUMNS)


def verdict_counts(table: pd.DataFrame) -> pd.DataFrame:
    """Claims per (run, study) by verdict: columns run, study, claims, and one per verdict found."""
    claims = table[table["kind"] == "claim"]
    counts = claims.groupby(["run", "study", "verdict"], sort=False).size().unstack("verdict", fill_value=0)
    counts.insert(0, "claims", counts.sum(axis=1))
    return counts.reset_index()


def markdown(table: pd.DataFrame) -> str:
    """The comparison as Markdown: claims passed per study and run, then every leaderboard row side by side."""
    runs = list(dict.fromkeys(table["run"]))
    lines = ["# Comparison across runs", "", f"Runs: {', '.join(f'`{run}`' for run in runs)}.", "", "## Claims ledgers", "",
             "| run | study | claims | " + " | ".join(verdict for verdict in ("PASS", "FAIL", "INCONCLUSIVE")) + " |",
             "|---|---|---|---|---|---|"]
    for row in verdict_counts(table).itertuples(index=False):
        counts = row._asdict()
        lines.append(f"| `{row.run}` | {row.study} | {row.claims} | "
                     + " | ".join(str(counts.get(verdict, 0)) for verdict in ("PASS", "FAIL", "INCONCLUSIVE")) + " |")
    board = table[table["kind"] == "leaderboard"].pivot_table(index=["case", "estimator"], columns="run", values="ratio_to_bayes",
                                                              sort=False)
    lines += ["", "## Leaderboards: MSE over the Bayes posterior mean's, on each run's own fresh prompts", "",
              "| case | estimator | " + " | ".join(f"`{run}`" for run in runs) + " |", "|---|---|" + "---|" * len(runs)]
    for (case, estimator), row in board.iterrows():
        cells = [f"{row[run]:.3f}" if run in row and pd.notna(row[run]) else "–" for run in runs]
        lines.append(f"| {case} | {estimator} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
