"""The comparison across runs, from its table (icdenoise.experiments.comparison): left, every denoiser's
MSE over the Bayes posterior mean's, one marker per run; right, the share of each study's claims that
pass, per run."""

from __future__ import annotations

import numpy as np
import pandas as pd

from icdenoise.records.figures import OTHER_MODEL_COLORS, start_figure

RUN_COLORS = ["#1f77b4", "#d62728", *OTHER_MODEL_COLORS]
RUN_MARKERS = ["o", "^", "s", "D", "v", "P"]


def render(tables: dict[str, pd.DataFrame]):
    """tables: {"comparison": the comparison table}."""
    table = tables["comparison"]
    runs = list(dict.fromkeys(table["run"]))
    board = table[table["kind"] == "leaderboard"]
    rows = list(dict.fromkeys(zip(board["case"], board["estimator"])))
    claims = table[table["kind"] == "claim"]
    studies = list(dict.fromkeys(claims["study"]))
    figure, (left, right) = start_figure(1, 2, figsize=(10, max(4.0, 0.16 * len(rows) + 1.5)),
                                         gridspec_kw={"width_ratios": [3, 2]})
    positions = {row: index for index, row in enumerate(rows)}
    for index, run in enumerate(runs):
        of_run = board[board["run"] == run]
        y = [positions[row] + (index - (len(runs) - 1) / 2) * 0.2 for row in zip(of_run["case"], of_run["estimator"])]
        left.scatter(of_run["ratio_to_bayes"], y, s=14, marker=RUN_MARKERS[index % len(RUN_MARKERS)],
                     color=RUN_COLORS[index % len(RUN_COLORS)], label=run, zorder=3)
    left.set_yticks(range(len(rows)), [f"{case}: {estimator}" for case, estimator in rows], fontsize=6)
    left.invert_yaxis()
    left.axvline(1.0, color="grey", linewidth=0.8)
    if (board["ratio_to_bayes"] > 0).all() and len(board):
        left.set_xscale("log")
    left.set_xlabel("MSE / Bayes MSE (each run's own fresh prompts)")
    left.legend(title="run", fontsize=7)
    width = 0.8 / max(len(runs), 1)
    for index, run in enumerate(runs):
        of_run = claims[claims["run"] == run]
        shares, labels = [], []
        for study in studies:
            verdicts = of_run.loc[of_run["study"] == study, "verdict"]
            shares.append((verdicts == "PASS").mean() if len(verdicts) else np.nan)
            labels.append(f"{(verdicts == 'PASS').sum()}/{len(verdicts)}" if len(verdicts) else "–")
        x = np.arange(len(studies)) + (index - (len(runs) - 1) / 2) * width
        bars = right.bar(x, np.nan_to_num(shares), width=width, color=RUN_COLORS[index % len(RUN_COLORS)], label=run)
        right.bar_label(bars, labels, fontsize=6.5)
    right.set_xticks(range(len(studies)), studies)
    right.set_ylim(0, 1.15)
    right.set_ylabel("share of claims that pass")
    right.legend(title="run", fontsize=7)
    figure.suptitle(f"Runs compared: {', '.join(runs)}", fontsize=10)
    figure.tight_layout()
    return figure
