"""Factual recall by one-layer transformers (Bietti 2025 slide 11, after Nichani, Lee & Bietti 2024).

(a) Attention + MLP: every grid point at (facts S·R, trained parameters), coloured by its recall (mean over seeds);
the parameter count at which recall crosses the threshold (`factual_needed`, log-interpolated); slide 11's
m·d = S·R as a parameter count, 4·H·d·d_h + 2·S·R (the trained parameters 4·H·d·d_h + 2·m·d at m = S·R/d, with H,
d and d_h of the grid rows of that S·R); and, where at least two crossings are finite, the line parameters = c·S·R
with c fitted by least squares in log space to the crossings (log c = mean of log parameters − log S·R); and the
log-log slope that the claims ledger (`claims`) reports for factual_parameters_scale_with_facts, with its interval
and verdict, drawn through the geometric mean of the crossings (`records.figures.draw_ledger_slope`).
(b) Attention + MLP, the MLP alone: m*·d against S·R, where m* is the width at which recall crosses the threshold
(`factual_needed`'s `needed`), against slide 11's m·d = S·R itself, with the ledger's slope for
factual_mlp_storage_scales_with_facts drawn the same way.
(c) Attention only: recall (mean over seeds, min-max band when there are several) against d, one line per
(R, A_max), with slide 11's d = R + A_max dotted in the same colour, the threshold, the crossing d where the
grid brackets it, and in the legend the ledger's slope for factual_attention_only_d (of d* against R + A_max).
A claim that the run's config does not list is not drawn."""

from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import ScalarFormatter

from icdenoise.records.figures import draw_ledger_slope, ledger_text, start_figure

CROSSING_COLOR = "#d62728"
CONDITION_COLOR = "0.2"
FIT_COLOR = "#ff7f0e"
LEDGER_COLOR = "#9467bd"


def missing_crossings(needed, labels, key: str) -> str:
    """'no crossing on the grid: <key> = a, b (reason); …' for the rows of `needed` whose crossing is NaN (`labels`:
    one label per row of `needed`), '' when there are none."""
    missing = ~np.isfinite(needed["needed"].to_numpy(float))
    if not missing.any():
        return ""
    rows = needed[missing].assign(label=np.asarray(labels)[missing])
    parts = [f"{key} = {', '.join(group['label'])} ({reason})" for reason, group in rows.groupby("reason", sort=True)]
    return textwrap.fill("no crossing on the grid: " + "; ".join(parts), 70)


def finish(ax, note: str) -> None:
    """The legend below the panel, ending with `note` (the missing crossings) when there is one; plain tick labels."""
    if note:
        ax.plot([], [], linestyle="none", label=note)
    ax.legend(fontsize=6.5, loc="upper center", bbox_to_anchor=(0.5, -0.14))
    ax.xaxis.set_major_formatter(ScalarFormatter())


def draw_phase_diagram(ax, grid, needed, ledger):
    """Panel (a): the attention + MLP grid, its crossings, slide 11's condition, the fitted c·S·R and the ledger's slope."""
    points = grid.groupby(["facts", "parameters"], as_index=False)["recall"].mean()
    dots = ax.scatter(points["facts"], points["parameters"], c=points["recall"], cmap="viridis", vmin=0, vmax=1,
                      s=30, edgecolors="0.3", linewidths=0.4, zorder=3, label="grid point (colour: recall)")
    ax.figure.colorbar(dots, ax=ax, label="recall (mean over seeds)")
    sizes = grid.groupby("facts", as_index=False)[["heads", "d", "head_dim"]].first()
    condition = 4 * sizes["heads"] * sizes["d"] * sizes["head_dim"] + 2 * sizes["facts"]
    ax.plot(sizes["facts"], condition, color=CONDITION_COLOR, linestyle="--", marker=".",
            label=r"slide 11: $m d = S R$, i.e. $4 H d d_h + 2 S R$")
    finite = needed[np.isfinite(needed["parameters"])]
    if not finite.empty:
        ax.plot(finite["facts"], finite["parameters"], linestyle="none", marker="*", markersize=11,
                color=CROSSING_COLOR, zorder=4, label=f"crossing: recall ≥ {needed['threshold'].iloc[0]:g}")
    if finite["facts"].nunique() >= 2:
        c = np.exp(np.mean(np.log(finite["parameters"].to_numpy(float)) - np.log(finite["facts"].to_numpy(float))))
        span = np.geomspace(grid["facts"].min(), grid["facts"].max(), 50)
        ax.plot(span, c * span, color=FIT_COLOR, linestyle=":", label=f"c·S·R, c = {c:.3g} fitted to the crossings")
    draw_ledger_slope(ax, ledger, "factual_parameters_scale_with_facts", finite["facts"], finite["parameters"],
                      color=LEDGER_COLOR, linestyle="-.")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.yaxis.set_major_formatter(ScalarFormatter())
    ax.set_xlabel("facts S·R")
    ax.set_ylabel("trained parameters 4·H·d·d_h + 2·m·d")
    finish(ax, missing_crossings(needed, [str(facts) for facts in needed["facts"]], "S·R"))
    first = grid.iloc[0]
    ratio = grid["heads"] * grid["head_dim"] / (grid["subjects"] + grid["relations"])
    ratios = f"{ratio.min():.2g}" + (f"-{ratio.max():.2g}" if ratio.max() > ratio.min() else "")
    ax.set_title(f"(a) attention + MLP: S = R, A = {first['answers']}, d = {first['d']}, d_h = {first['head_dim']}, "
                 f"H·d_h/(S + R) = {ratios}; m swept", fontsize=8.5)


def draw_mlp_width(ax, grid, needed, ledger):
    """Panel (b): m*·d against S·R with the line m·d = S·R and the ledger's slope."""
    finite = needed[np.isfinite(needed["needed"])]
    d = grid.groupby("facts")["d"].first()
    memory = finite["needed"].to_numpy(float) * d.reindex(finite["facts"]).to_numpy(float)
    ax.plot(finite["facts"], memory, linestyle="none", marker="*", markersize=11, color=CROSSING_COLOR,
            label="m*·d at the crossing")
    draw_ledger_slope(ax, ledger, "factual_mlp_storage_scales_with_facts", finite["facts"], memory,
                      color=LEDGER_COLOR, linestyle="-.")
    span = np.array([grid["facts"].min(), grid["facts"].max()], dtype=float)
    ax.plot(span, span, color=CONDITION_COLOR, linestyle="--", label=r"slide 11: $m d = S R$")
    widths = grid["width"] * grid["d"]
    ax.axhspan(widths.min(), widths.max(), color="0.5", alpha=0.08, linewidth=0, label="the grid's range of m·d")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.yaxis.set_major_formatter(ScalarFormatter())
    ax.set_xlabel("facts S·R")
    ax.set_ylabel("MLP m*·d at the crossing")
    finish(ax, missing_crossings(needed, [str(facts) for facts in needed["facts"]], "S·R"))
    ax.set_title("(b) attention + MLP: the MLP's m*·d", fontsize=8.5)


def draw_attention_only(ax, grid, needed, ledger):
    """Panel (c): recall against d per (R, A_max), with d = R + A_max, the crossing d and the ledger's slope."""
    colors = plt.get_cmap("tab10").colors
    for index, ((relations, answers), rows) in enumerate(grid.groupby(["relations", "answers"], sort=True)):
        color = colors[index % len(colors)]
        by_d = rows.groupby("d")["recall"]
        mean, low, high = by_d.mean(), by_d.min(), by_d.max()
        crossing = needed[(needed["relations"] == relations) & (needed["answers"] == answers)]
        found = crossing[np.isfinite(crossing["needed"])]
        label = f"R = {relations}, A_max = {answers}" + (f": d* = {found['needed'].iloc[0]:.3g}" if not found.empty else "")
        ax.plot(mean.index, mean.to_numpy(), color=color, marker="o", markersize=3, label=label)
        if rows["seed"].nunique() > 1:
            ax.fill_between(mean.index, low.to_numpy(), high.to_numpy(), color=color, alpha=0.15, linewidth=0)
        ax.axvline(relations + answers, color=color, linestyle=":", linewidth=1)
        if not found.empty:
            ax.plot(found["needed"], found["threshold"], linestyle="none", marker="v", markersize=7, color=color,
                    markeredgecolor="0.2", zorder=4)
    if not needed.empty:
        ax.axhline(needed["threshold"].iloc[0], color="0.5", linewidth=0.8, linestyle="--",
                   label=f"threshold {needed['threshold'].iloc[0]:g} (▼: crossing d*)")
    ax.plot([], [], color="0.3", linestyle=":", label="slide 11: d = R + A_max (dotted, same colour)")
    slope = ledger_text(ledger, "factual_attention_only_d")
    if slope is not None:
        ax.plot([], [], linestyle="none", label=f"slope of d* against R + A_max, {slope}")
    ax.set_xscale("log", base=2)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("embedding dimension d")
    ax.set_ylabel("recall (exact argmax over all facts)")
    finish(ax, missing_crossings(needed, [f"({r}, {a})" for r, a in zip(needed["relations"], needed["answers"])], "(R, A_max)"))
    first = grid.iloc[0]
    ax.set_title(f"(c) attention only: S = {first['subjects']}, H = {first['heads']}, d_h = {first['head_dim']} "
                 f"(H·d_h = {first['heads'] * first['head_dim']})", fontsize=8.5)


def render(tables):
    table, needed, ledger = tables["factual"], tables["factual_needed"], tables["claims"]
    figure, (mlp_ax, width_ax, only_ax) = start_figure(1, 3, figsize=(15.0, 5.8), layout="constrained",
                                                       gridspec_kw={"width_ratios": [1.25, 0.8, 1]})
    for ax, model, draw in ((mlp_ax, "attention_mlp", draw_phase_diagram), (width_ax, "attention_mlp", draw_mlp_width),
                            (only_ax, "attention_only", draw_attention_only)):
        grid, mine = table[table["model"] == model], needed[needed["model"] == model]
        if grid.empty:
            ax.text(0.5, 0.5, f"no {model} rows", transform=ax.transAxes, ha="center")
        else:
            draw(ax, grid, mine, ledger)
    seeds = table["seed"].nunique()
    figure.suptitle(f"Factual recall by one-layer transformers on frozen random embeddings (slide 11); recall: mean over "
                    f"{seeds} training seed{'s' if seeds > 1 else ''}" + (", band min-max" if seeds > 1 else ""), fontsize=9)
    return figure
