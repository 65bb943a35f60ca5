"""The "can store at most d memories" figure: the best top-k memory's error and its k*(d) against d."""

from __future__ import annotations

import matplotlib.pyplot as plt

from icdenoise.records.figures import start_figure
from icdenoise.studies.memory.plots.zipf_axes import ESTIMATOR_STYLE, REFERENCE_COLOR, fit_of, format_fit


def render(tables):
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
            fit = fit_of(fits, alpha, "top_k", "d", "best_k") if fitted else None
            mean = best.groupby("d")["stored"].mean()
            label = f"N = {vocabulary}: mean k*" + (f", slope {format_fit(fit)} (slides: 1)" if fit is not None else " (k* ≤ N)")
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
