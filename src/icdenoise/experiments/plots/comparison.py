"""The comparison across runs, from its table (icdenoise.experiments.comparison): left, every denoiser's
MSE over the Bayes posterior mean's, one marker per run, on a log axis (a case whose Bayes MSE is tiny puts its
denoisers' ratios at 1e5 beside others' near 1); right, the share of each study's claims that pass, per run.
A row without a ratio (the Bayes MSE exact up to rounding: records.leaderboard.EXACT_BAYES) is drawn as an open
marker at the axis's left edge, never left out."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.lines import Line2D
from matplotlib.transforms import blended_transform_factory

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
    at_left_edge = blended_transform_factory(left.transAxes, left.transData)  # x in axes fractions, y in rows
    for index, run in enumerate(runs):
        of_run = board[board["run"] == run]
        y = np.array([positions[row] + (index - (len(runs) - 1) / 2) * 0.2 for row in zip(of_run["case"], of_run["estimator"])])
        ratio = of_run["ratio_to_bayes"].to_numpy(dtype=float)
        drawn = np.isfinite(ratio)
        marker, color = RUN_MARKERS[index % len(RUN_MARKERS)], RUN_COLORS[index % len(RUN_COLORS)]
        left.scatter(ratio[drawn], y[drawn], s=14, marker=marker, color=color, label=run, zorder=3)
        left.scatter(np.full((~drawn).sum(), 0.012), y[~drawn], s=14, marker=marker, facecolors="none", edgecolors=color,
                     zorder=3, transform=at_left_edge, clip_on=False)
    left.set_yticks(range(len(rows)), [f"{case}: {estimator}" for case, estimator in rows], fontsize=6)
    left.invert_yaxis()
    left.axvline(1.0, color="grey", linewidth=0.8)
    scale, options = ratio_scale(board["ratio_to_bayes"])
    left.set_xscale(scale, **options)
    left.set_xlabel("MSE / Bayes MSE (each run's own fresh prompts)")
    handles, labels = left.get_legend_handles_labels()
    if not np.isfinite(board["ratio_to_bayes"].to_numpy(dtype=float)).all():
        handles.append(Line2D([], [], linestyle="none", marker="o", markersize=4, markerfacecolor="none", color="0.3"))
        labels.append("open, at the left edge:\nno ratio (Bayes MSE exact)")
    left.legend(handles, labels, title="run", fontsize=7)
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


def ratio_scale(ratios: pd.Series) -> tuple[str, dict]:
    """The x axis of the ratios to Bayes (matplotlib's scale and its options), drawn whole from the table: log, as
    they span decades, where every finite ratio is positive (as an MSE over a positive Bayes MSE is); otherwise
    symlog, linear within the smallest positive ratio of 0, so that a zero or negative ratio is drawn too."""
    finite = ratios[np.isfinite(ratios.to_numpy(dtype=float))]
    if (finite > 0).all():
        return "log", {}
    positive = finite[finite > 0]
    return "symlog", {"linthresh": float(positive.min()) if len(positive) else 1.0}
