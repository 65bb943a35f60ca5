"""Zipf scaling laws of a finite associative memory (Bietti 2025 slides, "Theorem (Cabannes, Dohmatob, and
B., 2024a, informal)"): the exact test error against n and against d for the three estimators q, and the
"can store at most d memories" optimum. Reads tables["zipf"] (`zipf.scaling_table`) and
tables["zipf_fit"] (`zipf.fit_table`). The slides' slopes are drawn over each fit range, through the mean
error at the range's first grid point."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ....plotting import start_figure

ESTIMATOR_STYLE = {
    "counts": {"color": "#1f77b4", "marker": "o", "label": "q = counts (①)"},
    "seen": {"color": "#2ca02c", "marker": "s", "label": "q = 1{seen} (②)"},
    "threshold": {"color": "#d62728", "marker": "^", "label": "q = 1{count ≥ s} (③)"},
    "top_k": {"color": "#9467bd", "marker": "D", "label": "best top-k memory (k*)"},
}
REFERENCE_COLOR = "black"
SMALLEST_SHOWN = 1e-6  # errors of exactly 0 (every token recalled) have no place on a log axis


def _fmt_fit(fit) -> str:
    return f"{fit['slope']:+.2f} [{fit['ci_low']:+.2f}, {fit['ci_high']:+.2f}]"


def _curve(ax, rows, x, style, label, linestyle="-"):
    """Mean over seeds with a min-max band; zeros are left out of the log axis."""
    stats = rows.groupby(x)["error"].agg(["mean", "min", "max"])
    stats = stats[stats["mean"] > 0]
    ax.plot(stats.index, stats["mean"], color=style["color"], marker=style["marker"], markersize=3, linestyle=linestyle,
            label=label)
    ax.fill_between(stats.index, stats["min"].clip(lower=SMALLEST_SHOWN), stats["max"], color=style["color"], alpha=0.12,
                    linewidth=0)
    return stats


def _slides_segment(ax, stats, fit, color):
    """The slides' power law over the fit range, through the mean error at the range's first grid point."""
    inside = stats[(stats.index >= fit["x_min"]) & (stats.index <= fit["x_max"])]
    if inside.empty:
        return
    x0, y0 = float(inside.index[0]), float(inside["mean"].iloc[0])
    x = np.array([x0, float(inside.index[-1])])
    ax.plot(x, y0 * (x / x0) ** fit["slides_exponent"], color=color, linestyle=(0, (4, 2)), linewidth=2.4, alpha=0.6,
            zorder=4)


def _fit_of(fits, alpha, estimator, against, quantity="error"):
    chosen = fits[(fits["alpha"] == alpha) & (fits["estimator"] == estimator) & (fits["against"] == against)
                  & (fits["quantity"] == quantity)]
    return None if chosen.empty else chosen.iloc[0]


def _grid(table):
    alphas = sorted(table["alpha"].unique())
    vocabularies = sorted(table["vocabulary"].unique(), reverse=True)
    figure, axes = start_figure(len(vocabularies), len(alphas), figsize=(5.2 * len(alphas), 3.9 * len(vocabularies)),
                                layout="constrained", squeeze=False)
    return figure, axes, alphas, vocabularies


def render_n(tables):
    """Error against n at d = d_for_n_sweep: one column per α, one row per vocabulary (largest first)."""
    table, fits = tables["zipf"], tables["zipf_fit"]
    rows_n = table[table["sweep"] == "n"]
    figure, axes, alphas, vocabularies = _grid(rows_n)
    for row, vocabulary in enumerate(vocabularies):
        for column, alpha in enumerate(alphas):
            ax = axes[row, column]
            mine = rows_n[(rows_n["alpha"] == alpha) & (rows_n["vocabulary"] == vocabulary)]
            fitted = vocabulary == max(vocabularies)
            for estimator in ("counts", "seen", "threshold"):
                style = ESTIMATOR_STYLE[estimator]
                fit = _fit_of(fits, alpha, estimator, "n") if fitted else None
                label = style["label"] + (f": slope {_fmt_fit(fit)} on n ∈ [{fit['x_min']:g}, {fit['x_max']:.3g}]"
                                          if fit is not None else "")
                stats = _curve(ax, mine[mine["estimator"] == estimator], "n", style, label,
                               linestyle=":" if estimator == "threshold" else "-")
                if fit is not None:
                    _slides_segment(ax, stats, fit, style["color"])
            reference = mine.groupby("n")["infinite_memory"].first()
            reference = reference[reference > SMALLEST_SHOWN]
            ax.plot(reference.index, reference, color=REFERENCE_COLOR, linestyle="--", linewidth=1,
                    label="no interference: (1 − 1/M) Σ p(z)(1 − p(z))ⁿ")
            if fitted:
                ax.plot([], [], color="grey", linestyle=(0, (4, 2)), linewidth=2.2, alpha=0.55,
                        label=f"slides: n^−(α−1)/α = n^{-(alpha - 1) / alpha:.2f}, through the first fitted point")
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_ylim(bottom=SMALLEST_SHOWN if not fitted else None)
            ax.set_xlabel("samples n")
            ax.set_ylabel("test error (exact mass of mis-recalled tokens)")
            d = int(mine["d"].iloc[0])
            ax.set_title(f"α = {alpha:g}, N = {vocabulary}, d = {d}" + ("" if fitted else f" (d = {d / vocabulary:g} N; error 0 not shown)"))
            ax.legend(fontsize=6.5, loc="upper center", bbox_to_anchor=(0.5, -0.16))
    figure.suptitle(f"Zipf scaling in n: M = {table['outputs'].iloc[0]} outputs; mean over {table['seed'].nunique()} draws, "
                    f"band min-max", fontsize=9)
    return figure


def render_d(tables):
    """Error against d at n = n_for_d_sweep, with the best top-k memory: one column per α, one row per
    vocabulary (largest first)."""
    table, fits = tables["zipf"], tables["zipf_fit"]
    rows_d = table[table["sweep"] == "d"]
    figure, axes, alphas, vocabularies = _grid(rows_d)
    for row, vocabulary in enumerate(vocabularies):
        for column, alpha in enumerate(alphas):
            ax = axes[row, column]
            mine = rows_d[(rows_d["alpha"] == alpha) & (rows_d["vocabulary"] == vocabulary)]
            fitted = vocabulary == max(vocabularies)
            for estimator in ("counts", "seen", "threshold", "top_k"):
                style = ESTIMATOR_STYLE[estimator]
                selected = mine[mine["best"]] if estimator == "top_k" else mine[mine["estimator"] == estimator]
                fit = _fit_of(fits, alpha, estimator, "d") if fitted and estimator != "seen" else None
                label = style["label"] + (f": slope {_fmt_fit(fit)}, slides {fit['slides_exponent']:.2f}" if fit is not None else "")
                stats = _curve(ax, selected, "d", style, label, linestyle=":" if estimator == "top_k" else "-")
                if fit is not None and estimator != "top_k":
                    _slides_segment(ax, stats, fit, style["color"])
            if fitted:
                ax.plot([], [], color="grey", linestyle=(0, (4, 2)), linewidth=2.2, alpha=0.55,
                        label="slides: d^−(α−1)/(2α) (①), d^−α+1 (③), through the first point")
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_ylim(bottom=SMALLEST_SHOWN if not fitted else None)
            ax.set_xlabel("memory dimension d")
            ax.set_ylabel("test error (exact mass of mis-recalled tokens)")
            n = mine[mine["estimator"] != "top_k"]["n"].iloc[0]
            ax.set_title(f"α = {alpha:g}, N = {vocabulary}, n = {n:.0e}" + ("" if fitted else " (error 0 not shown)"))
            ax.legend(fontsize=6.5, loc="upper center", bbox_to_anchor=(0.5, -0.16))
    figure.suptitle(f"Zipf scaling in d: M = {table['outputs'].iloc[0]} outputs; mean over {table['seed'].nunique()} draws, "
                    "band min-max; seen stores every token (N ≫ d fails)", fontsize=9)
    return figure


def render_optimum(tables):
    """'Can store at most d memories': top row, error of the top-k memory against k/d for each d (largest
    vocabulary); bottom row, the best k*(d) per draw against d with the line k = d."""
    table, fits = tables["zipf"], tables["zipf_fit"]
    top = table[table["estimator"] == "top_k"]
    alphas = sorted(top["alpha"].unique())
    vocabularies = sorted(top["vocabulary"].unique(), reverse=True)
    figure, axes = start_figure(2, len(alphas), figsize=(5.2 * len(alphas), 7.6), layout="constrained", squeeze=False)
    ds = sorted(top["d"].unique())
    shades = {d: plt.get_cmap("viridis")(0.9 * i / max(len(ds) - 1, 1)) for i, d in enumerate(ds)}
    for column, alpha in enumerate(alphas):
        ax = axes[0, column]
        mine = top[(top["alpha"] == alpha) & (top["vocabulary"] == max(vocabularies))]
        for d in ds:
            rows = mine[mine["d"] == d]
            curve = rows.groupby("stored")["error"].mean()
            color = shades[d]
            ax.plot(curve.index / d, curve, color=color, marker=".", markersize=3, label=f"d = {d}")
            best = rows[rows["best"]]
            ax.scatter(best["stored"] / d, best["error"], color=color, marker="*", s=40, edgecolors="black", linewidths=0.3,
                       zorder=3)
        ax.axvline(1.0, color=REFERENCE_COLOR, linestyle="--", linewidth=1, label="k = d (slides: at most d memories)")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("stored tokens k / d  (q = 1{z ≤ k}, the k most frequent)")
        ax.set_ylabel("test error, mean over draws")
        ax.set_title(f"α = {alpha:g}, N = {max(vocabularies)}: mean over draws; ★ a draw's best k*")
        ax.legend(fontsize=6.5, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=3)

        ax = axes[1, column]
        for vocabulary in vocabularies:
            best = top[(top["alpha"] == alpha) & (top["vocabulary"] == vocabulary) & top["best"]]
            style = ESTIMATOR_STYLE["top_k"]
            fitted = vocabulary == max(vocabularies)
            fit = _fit_of(fits, alpha, "top_k", "d", "best_k") if fitted else None
            mean = best.groupby("d")["stored"].mean()
            label = f"N = {vocabulary}: mean k*" + (f", slope {_fmt_fit(fit)} (slides: 1)" if fit is not None else " (k* ≤ N)")
            ax.plot(mean.index, mean, color=style["color"], marker=style["marker"], markersize=3,
                    linestyle="-" if fitted else ":", label=label)
            ax.scatter(best["d"], best["stored"], color=style["color"], s=8, alpha=0.4)
        ax.plot(ds, ds, color=REFERENCE_COLOR, linestyle="--", linewidth=1, label="k = d")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log", base=2)
        ax.set_xlabel("memory dimension d")
        ax.set_ylabel("best number of stored tokens k*(d)")
        ax.set_title(f"α = {alpha:g}: dots = draws")
        ax.legend(fontsize=6.5, loc="upper left")
    figure.suptitle(f"At most d memories: M = {table['outputs'].iloc[0]} outputs, top-k memories on a grid of "
                    f"{top.groupby(['alpha', 'vocabulary', 'd', 'seed']).size().max()} values of k per d", fontsize=9)
    return figure
