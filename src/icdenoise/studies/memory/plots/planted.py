"""The induction head's learnability threshold on the planted-token task (Bietti 2025 slide 24, after Vural, Wu
and Bietti 2025+): three gradient steps (W_OV, then W_KQ, then W_OV) learn y = f*(z_{t*}) iff
d ≫ (T²/N)·min{1, (N²/(T n))^{2/3}}.

(a) Test recall after the three steps against d, one line per T at the (d, T) grid's n (the n with the most distinct
T), mean over seeds with the min-max band, and the recall after the first W_OV step alone dashed; the success
threshold as a line when the boundary table carries it (a `threshold` column). (b) The mean attention on the
planted position after the W_KQ step, with 1/T (uniform attention) dotted. (c) d*, the d at which recall crosses the
threshold (`planted_boundary`), against T at that n and (d) against n at the n grid's T (the T with the most distinct
n), log-log: each seed a small point, the geometric mean of the finite d* a large one, and the theorem's threshold
(the `theory_d` column) times one constant c, fitted by least squares in log space to every finite d* of the table
(log c = mean of log d* − log theory_d). The legends give the theorem's log-log slope over the plotted grid (from
theory_d between neighbouring grid points); (c) also draws the slope that the claims ledger (`claims`) reports for
planted_boundary_slope_in_t, with its interval and verdict, through the geometric mean of the finite d*
(`records.figures.draw_ledger_slope`). d* that the grid does not bracket are not drawn, and each panel counts them by
reason. √N, the theorem's lower limit on d, is dotted. Panels (a)-(d) leave out the regime grid (the `grid` column),
which (e) and (f) show: (e) its recall against d, one line per T; (f) its d* against T, the lengths above the floor
(slide 24's T-term in its 4/3 regime and at least `floor_factor`·√N, the claim
planted_boundary_slope_in_t_above_floor's setting: N²/(T n) < 1 and theory_d ≥ floor_factor·√N, read off the
boundary table) filled, the others hollow, with c·theory_d fitted over the filled ones and the ledger's slope for
planted_boundary_slope_in_t_above_floor drawn through them. A claim that the run's config does not list is not
drawn."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import ScalarFormatter

from icdenoise.records.figures import draw_ledger_slope, start_figure

THEORY_COLOR = "0.2"
LEDGER_COLOR = "#9467bd"


def most_distinct(table, key: str, over: str):
    """The value of `key` with the most distinct values of `over` (the first such value when tied)."""
    return table.groupby(key)[over].nunique().idxmax()


def draw_against_d(ax, rows, column, colors, **style):
    """`column` (mean over seeds, min-max band when there are several) against d, one line per T."""
    for length, mine in rows.groupby("length", sort=True):
        by_d = mine.groupby("d")[column]
        mean = by_d.mean()
        ax.plot(mean.index, mean.to_numpy(), color=colors[length], **style)
        if mine["seed"].nunique() > 1:
            ax.fill_between(mean.index, by_d.min().to_numpy(), by_d.max().to_numpy(), color=colors[length], alpha=0.15,
                            linewidth=0)


def slope_text(x, y) -> str:
    """The log-log slopes of y against x between neighbouring points, rounded to two decimals, joined by "→"."""
    order = np.argsort(x)
    slopes = np.diff(np.log(np.asarray(y, float)[order])) / np.diff(np.log(np.asarray(x, float)[order]))
    values = []
    for slope in np.round(slopes, 2):
        if not values or values[-1] != slope:
            values.append(slope)
    return " → ".join(f"{value:.2f}" for value in values)


def missing_text(rows, grid_d) -> str:
    """How many rows have no finite d*, by reason, with the grid's d range."""
    missing = rows[~np.isfinite(rows["d_star"])]
    if missing.empty:
        return ""
    counts = "; ".join(f"{len(group)} {reason}" for reason, group in missing.groupby("reason", sort=True))
    return f"not drawn: {len(missing)} of {len(rows)} d* (grid d = {grid_d.min()}-{grid_d.max()}): {counts}"


def draw_boundary(ax, rows, axis, c, grid_d, label, ledger, claim=None):
    """d* against `axis` (length or samples): per-seed points, geometric means of the finite d*, c·theory_d, and
    the ledger's slope of `claim` through the finite d* when one is named."""
    if rows.empty:
        ax.text(0.5, 0.5, "no boundary rows", transform=ax.transAxes, ha="center")
        return
    finite = rows[np.isfinite(rows["d_star"])]
    ax.plot(finite[axis], finite["d_star"], linestyle="none", marker="o", markersize=3, color="#1f77b4", alpha=0.5,
            label="d*, one point per seed")
    if not finite.empty:
        means = np.exp(np.log(finite["d_star"]).groupby(finite[axis]).mean())
        ax.plot(means.index, means.to_numpy(), marker="o", markersize=6, color="#1f77b4",
                label="geometric mean of the finite d*")
    if claim is not None:
        draw_ledger_slope(ax, ledger, claim, finite[axis], finite["d_star"], color=LEDGER_COLOR, linestyle="-.")
    theory = rows.groupby(axis)["theory_d"].first()
    if np.isfinite(c) and len(theory):
        ax.plot(theory.index, c * theory.to_numpy(), color=THEORY_COLOR, linestyle="--",
                label=f"c·(T²/N)·min{{1, (N²/(Tn))^(2/3)}}, c = {c:.3g} (log-space least squares, all finite d*)")
    if len(theory) >= 2:
        ax.plot([], [], linestyle="none", label=f"theorem's slope in {label} on this grid: {slope_text(theory.index, theory)}")
    vocabulary = rows["vocabulary"].iloc[0]
    ax.axhline(np.sqrt(vocabulary), color="0.6", linestyle=":", linewidth=1, label=f"√N = {np.sqrt(vocabulary):.3g}")
    ax.axhspan(grid_d.min(), grid_d.max(), color="0.5", alpha=0.08, linewidth=0, label="the grid's range of d")
    note = missing_text(rows, grid_d)
    if note:
        ax.plot([], [], linestyle="none", label=note)
    if finite.empty:
        ax.text(0.5, 0.5, "no finite d* on this grid", transform=ax.transAxes, ha="center")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xlim(rows[axis].min() / 2 ** 0.25, rows[axis].max() * 2 ** 0.25)
    ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.yaxis.set_major_formatter(ScalarFormatter())
    ax.set_ylabel("d* (recall crosses the threshold)")
    ax.legend(fontsize=6.5, loc="upper center", bbox_to_anchor=(0.5, -0.16))


def draw_regime(recall_ax, boundary_ax, regime, boundary, floor_factor, ledger):
    """(e) the regime grid's recall against d, one line per T; (f) its d* against T, the lengths above the floor
    filled, with c·theory_d fitted over their finite d* and the ledger's slope drawn through them."""
    for ax in (recall_ax, boundary_ax):
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(ScalarFormatter())
    if regime.empty:
        for ax in (recall_ax, boundary_ax):
            ax.text(0.5, 0.5, "no regime grid in this run (memory.planted.regime)", transform=ax.transAxes, ha="center")
        return
    samples = int(regime["samples"].iloc[0])
    lengths = sorted(regime["length"].unique())
    colors = dict(zip(lengths, plt.get_cmap("plasma")(np.linspace(0, 0.85, len(lengths)))))
    draw_against_d(recall_ax, regime, "recall", colors, marker="o", markersize=3)
    for length in lengths:
        recall_ax.plot([], [], color=colors[length], label=f"T = {length}")
    if "threshold" in boundary.columns and not boundary.empty:
        recall_ax.axhline(boundary["threshold"].iloc[0], color="#d62728", linestyle=":", linewidth=1,
                          label=f"success: recall ≥ {boundary['threshold'].iloc[0]:g}")
    recall_ax.set_ylim(-0.02, 1.02)
    recall_ax.set_xlabel("embedding dimension d")
    recall_ax.set_ylabel("test recall after the three steps")
    recall_ax.set_title(f"(e) regime grid: recall against d, n = {samples}")
    recall_ax.legend(fontsize=7, loc="best")
    rows = boundary[(boundary["samples"] == samples) & boundary["length"].isin(lengths)]
    regime_bound = rows["vocabulary"] ** 2 / (rows["length"] * rows["samples"]) < 1  # the min picks the T-term
    above = (regime_bound & (rows["theory_d"] >= floor_factor * np.sqrt(rows["vocabulary"]))).to_numpy()
    finite = np.isfinite(rows["d_star"].to_numpy(float))
    for mask, style, label in ((above & finite, dict(markerfacecolor="#1f77b4"), f"d*, T-term ≥ {floor_factor:g}·√N"),
                               (~above & finite, dict(markerfacecolor="none"), "d*, below it (not read)")):
        boundary_ax.plot(rows.loc[mask, "length"], rows.loc[mask, "d_star"], linestyle="none", marker="o", markersize=4,
                         color="#1f77b4", label=label, **style)
    fitted = rows[above & finite]
    if not fitted.empty:
        c = float(np.exp(np.mean(np.log(fitted["d_star"]) - np.log(fitted["theory_d"]))))
        theory = rows.groupby("length")["theory_d"].first()
        boundary_ax.plot(theory.index, c * theory.to_numpy(), color=THEORY_COLOR, linestyle="--",
                         label=f"c·T^(4/3) N^(1/3) n^(-2/3), c = {c:.3g} (over the filled points)")
    draw_ledger_slope(boundary_ax, ledger, "planted_boundary_slope_in_t_above_floor", fitted["length"], fitted["d_star"],
                      color=LEDGER_COLOR, linestyle="-.")
    vocabulary = rows["vocabulary"].iloc[0] if len(rows) else regime["vocabulary"].iloc[0]
    boundary_ax.axhline(np.sqrt(vocabulary), color="0.6", linestyle=":", linewidth=1, label=f"√N = {np.sqrt(vocabulary):.3g}")
    boundary_ax.axhspan(regime["d"].min(), regime["d"].max(), color="0.5", alpha=0.08, linewidth=0, label="the grid's range of d")
    note = missing_text(rows, regime["d"]) if len(rows) else ""
    if note:
        boundary_ax.plot([], [], linestyle="none", label=note)
    if not finite.any():
        boundary_ax.text(0.5, 0.5, "no finite d* on this grid", transform=boundary_ax.transAxes, ha="center")
    boundary_ax.set_xlim(min(lengths) / 2 ** 0.25, max(lengths) * 2 ** 0.25)
    boundary_ax.set_yscale("log", base=2)
    boundary_ax.yaxis.set_major_formatter(ScalarFormatter())
    boundary_ax.set_xlabel("context length T")
    boundary_ax.set_ylabel("d* (recall crosses the threshold)")
    boundary_ax.set_title(f"(f) regime grid: d* against T, n = {samples}")
    boundary_ax.legend(fontsize=6.5, loc="upper center", bbox_to_anchor=(0.5, -0.16))


def render(tables, floor_factor: float = 4.0):
    everything, boundary, ledger = tables["planted"], tables["planted_boundary"], tables["claims"]
    regime = everything[everything["grid"] == "regime"]
    table = everything[everything["grid"] != "regime"]
    samples = most_distinct(table, "samples", "length")
    samples_length = most_distinct(table, "length", "samples")
    lengths = sorted(table["length"].unique())
    colors = dict(zip(lengths, plt.get_cmap("viridis")(np.linspace(0, 0.85, len(lengths)))))
    figure, axes = start_figure(3, 2, figsize=(10.4, 14.4), layout="constrained")
    (recall_ax, attention_ax), (length_ax, samples_ax), (regime_recall_ax, regime_boundary_ax) = axes
    at_samples = table[table["samples"] == samples]

    draw_against_d(recall_ax, at_samples, "recall", colors, marker="o", markersize=3)
    draw_against_d(recall_ax, at_samples, "recall_step1", colors, linestyle="--", linewidth=0.8)
    for length in sorted(at_samples["length"].unique()):
        recall_ax.plot([], [], color=colors[length], label=f"T = {length}")
    recall_ax.plot([], [], color="0.3", linestyle="--", linewidth=0.8, label="after the first W_OV step alone")
    if "threshold" in boundary.columns and not boundary.empty:
        recall_ax.axhline(boundary["threshold"].iloc[0], color="#d62728", linestyle=":", linewidth=1,
                          label=f"success: recall ≥ {boundary['threshold'].iloc[0]:g}")
    recall_ax.set_ylim(-0.02, 1.02)
    recall_ax.set_ylabel("test recall after the three steps")
    recall_ax.set_title(f"(a) recall against d, n = {samples}")

    draw_against_d(attention_ax, at_samples, "attention_planted", colors, marker="o", markersize=3)
    for length in sorted(at_samples["length"].unique()):
        attention_ax.axhline(1 / length, color=colors[length], linestyle=":", linewidth=1)
        attention_ax.plot([], [], color=colors[length], label=f"T = {length}")
    attention_ax.plot([], [], color="0.3", linestyle=":", linewidth=1, label="1/T: uniform attention")
    attention_ax.set_ylim(0, 1.02)
    attention_ax.set_ylabel("mean attention on t* after the W_KQ step")
    attention_ax.set_title(f"(b) attention on the planted position, n = {samples}")
    for ax in (recall_ax, attention_ax):
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(ScalarFormatter())
        ax.set_xlabel("embedding dimension d")
        ax.legend(fontsize=7, loc="best")

    pairs = set(zip(table["length"], table["samples"]))
    whole_boundary = boundary
    boundary = boundary[[pair in pairs for pair in zip(boundary["length"], boundary["samples"])]]
    finite = boundary[np.isfinite(boundary["d_star"])]
    c = float(np.exp(np.mean(np.log(finite["d_star"]) - np.log(finite["theory_d"])))) if not finite.empty else np.nan
    draw_boundary(length_ax, boundary[boundary["samples"] == samples], "length", c, table["d"], "T", ledger,
                  "planted_boundary_slope_in_t")
    length_ax.set_xlabel("context length T")
    length_ax.set_title(f"(c) d* against T, n = {samples}")
    draw_boundary(samples_ax, boundary[boundary["length"] == samples_length], "samples", c, table["d"], "n", ledger)
    samples_ax.set_xlabel("sample size n")
    samples_ax.set_title(f"(d) d* against n, T = {samples_length}")
    draw_regime(regime_recall_ax, regime_boundary_ax, regime, whole_boundary, floor_factor, ledger)

    seeds = table["seed"].nunique()
    figure.suptitle(f"Planted-token task, three gradient steps: N = {table['vocabulary'].iloc[0]}; {seeds} seed"
                    f"{'s' if seeds > 1 else ''}" + (" (band min-max)" if seeds > 1 else "")
                    + "; slide 24: learned iff d ≫ (T²/N)·min{1, (N²/(Tn))^(2/3)}", fontsize=9)
    return figure
