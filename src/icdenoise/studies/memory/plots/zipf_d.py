"""The Zipf figure against d: the same errors against the memory's dimension, with the slides' rates."""

from __future__ import annotations

from icdenoise.studies.memory.plots.zipf_axes import (
    ESTIMATOR_STYLE,
    SMALLEST_SHOWN,
    draw_curve,
    draw_slides_segment,
    fit_of,
    format_fit,
    start_grid,
)


def render(tables):
    """Error against d at n = n_for_d_sweep, with the best top-k memory: one column per α, one row per
    vocabulary (largest first)."""
    table, fits = tables["zipf"], tables["zipf_fit"]
    rows_d = table[table["sweep"] == "d"]
    figure, panels = start_grid(rows_d)
    for ax, alpha, vocabulary, mine, fitted in panels:
        for estimator in ("counts", "seen", "threshold", "top_k"):
            style = ESTIMATOR_STYLE[estimator]
            selected = mine[mine["best"]] if estimator == "top_k" else mine[mine["estimator"] == estimator]
            fit = fit_of(fits, alpha, estimator, "d") if fitted and estimator != "seen" else None
            label = style["label"] + (f": slope {format_fit(fit)}, slides {fit['slides_exponent']:.2f}" if fit is not None else "")
            stats = draw_curve(ax, selected, "d", style, label, linestyle=":" if estimator == "top_k" else "-")
            if fit is not None and estimator != "top_k":
                draw_slides_segment(ax, stats, fit, style["color"])
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
