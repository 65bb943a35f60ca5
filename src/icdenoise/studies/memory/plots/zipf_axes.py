"""What the three Zipf figures share (zipf_n, zipf_d, zipf_optimum): the Zipf scaling laws of a finite
associative memory (Bietti 2025 slides, "Theorem (Cabannes, Dohmatob, and B., 2024a, informal)"), drawn
from tables["zipf"] (`zipf.scaling_table`) and tables["zipf_fit"] (`zipf.fit_table`): the estimators'
styles, a curve with its band over seeds, and the slides' slopes over each fit range, through the mean
error at the range's first grid point."""

from __future__ import annotations

import numpy as np

from icdenoise.records.figures import start_figure

ESTIMATOR_STYLE = {
    "counts": {"color": "#1f77b4", "marker": "o", "label": "q = counts (①)"},
    "seen": {"color": "#2ca02c", "marker": "s", "label": "q = 1{seen} (②)"},
    "threshold": {"color": "#d62728", "marker": "^", "label": "q = 1{count ≥ s} (③)"},
    "top_k": {"color": "#9467bd", "marker": "D", "label": "best top-k memory (k*)"},
}
REFERENCE_COLOR = "black"
SMALLEST_SHOWN = 1e-6  # errors of exactly 0 (every token recalled) have no place on a log axis


def format_fit(fit) -> str:
    return f"{fit['slope']:+.2f} [{fit['ci_low']:+.2f}, {fit['ci_high']:+.2f}]"


def draw_curve(ax, rows, x, style, label, linestyle="-"):
    """Mean over seeds with a min-max band; zeros are left out of the log axis."""
    stats = rows.groupby(x)["error"].agg(["mean", "min", "max"])
    stats = stats[stats["mean"] > 0]
    ax.plot(stats.index, stats["mean"], color=style["color"], marker=style["marker"], markersize=3, linestyle=linestyle,
            label=label)
    ax.fill_between(stats.index, stats["min"].clip(lower=SMALLEST_SHOWN), stats["max"], color=style["color"], alpha=0.12,
                    linewidth=0)
    return stats


def draw_slides_segment(ax, stats, fit, color):
    """The slides' power law over the fit range, through the mean error at the range's first grid point."""
    inside = stats[(stats.index >= fit["x_min"]) & (stats.index <= fit["x_max"])]
    if inside.empty:
        return
    x0, y0 = float(inside.index[0]), float(inside["mean"].iloc[0])
    x = np.array([x0, float(inside.index[-1])])
    ax.plot(x, y0 * (x / x0) ** fit["slides_exponent"], color=color, linestyle=(0, (4, 2)), linewidth=2.4, alpha=0.6,
            zorder=4)


def fit_of(fits, alpha, estimator, against, quantity="error"):
    chosen = fits[(fits["alpha"] == alpha) & (fits["estimator"] == estimator) & (fits["against"] == against)
                  & (fits["quantity"] == quantity)]
    return None if chosen.empty else chosen.iloc[0]


def start_grid(table):
    """One panel per α (columns) and vocabulary (rows, largest first): the figure and, for each panel, its
    axes, α, the vocabulary, its rows of `table` and whether it is the fitted one (the largest vocabulary)."""
    alphas = sorted(table["alpha"].unique())
    vocabularies = sorted(table["vocabulary"].unique(), reverse=True)
    figure, axes = start_figure(len(vocabularies), len(alphas), figsize=(5.2 * len(alphas), 3.9 * len(vocabularies)),
                                layout="constrained", squeeze=False)
    panels = [(axes[row, column], alpha, vocabulary,
               table[(table["alpha"] == alpha) & (table["vocabulary"] == vocabulary)], vocabulary == vocabularies[0])
              for row, vocabulary in enumerate(vocabularies) for column, alpha in enumerate(alphas)]
    return figure, panels
