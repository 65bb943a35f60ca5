"""The Zipf figure against n: the exact test error of the three estimators q for each vocabulary and α, with Hutter's curve."""

from __future__ import annotations

from icdenoise.studies.memory.plots.zipf_axes import (
    ESTIMATOR_STYLE,
    REFERENCE_COLOR,
    SMALLEST_SHOWN,
    draw_curve,
    draw_slides_segment,
    fit_of,
    format_fit,
    start_grid,
)


def render(tables):
    """Error against n at d = d_for_n_sweep: one column per α, one row per vocabulary (largest first)."""
    table, fits = tables["zipf"], tables["zipf_fit"]
    rows_n = table[table["sweep"] == "n"]
    figure, panels = start_grid(rows_n)
    for ax, alpha, vocabulary, mine, fitted in panels:
        for estimator in ("counts", "seen", "threshold"):
            style = ESTIMATOR_STYLE[estimator]
            fit = fit_of(fits, alpha, estimator, "n") if fitted else None
            label = style["label"] + (f": slope {format_fit(fit)} on n ∈ [{fit['x_min']:g}, {fit['x_max']:.3g}]"
                                      if fit is not None else "")
            stats = draw_curve(ax, mine[mine["estimator"] == estimator], "n", style, label,
                               linestyle=":" if estimator == "threshold" else "-")
            if fit is not None:
                draw_slides_segment(ax, stats, fit, style["color"])
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
