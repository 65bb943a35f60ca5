"""Three gradient steps on the population loss of the 2-layer induction model (Bietti 2025 slides 20-21, after
Bietti et al. 2023): from zero, one step on W_OV², then one on W_KQ², then one on W_KQ¹ (the order of the table's
`trained` column). Left: the rank-recall probes of the three matrices after each stage, one colour per probe and one
marker per seed, each seed's stage at which a probe is reached (`population_order`) as a star, and the threshold
when the order table carries it (a `rank_threshold` column). Middle: the plain recall probes the same way. Right: the
test accuracy and loss after each stage, with the batch gradient's relative noise and the loss positions behind
each step (means over seeds) in the tick labels. Within a stage, the probes are drawn slightly apart along x so
that equal values stay visible."""

from __future__ import annotations

import numpy as np

from icdenoise.records.figures import start_figure
from icdenoise.studies.memory.plots.induction import PROBE_STYLE, TWO_LAYER_PROBES

STAGE_LABEL = {"init": "init", "wov2": "after the\n$W_{OV}^2$ step", "wkq2": "after the\n$W_{KQ}^2$ step",
               "wkq1": "after the\n$W_{KQ}^1$ step"}
SEED_MARKERS = ("o", "s", "^", "D", "v", "P")
OFFSET = 0.07  # x distance between neighbouring probes within a stage


def draw_probes(ax, table, order, prefix):
    """The `prefix` probes (rank_ or probe_) against the stage, one line per (probe, seed); stars at the reached stage
    (rank probes only)."""
    seeds = sorted(table["seed"].unique())
    for index, column in enumerate(TWO_LAYER_PROBES):
        name = column.replace("probe_", "")
        style = PROBE_STYLE[column]
        shift = (index - 1) * OFFSET
        for seed_index, seed in enumerate(seeds):
            run = table[table["seed"] == seed]
            marker = SEED_MARKERS[seed_index % len(SEED_MARKERS)]
            ax.plot(run["stage"] + shift, run[prefix + name], color=style["color"], marker=marker, markersize=4, alpha=0.8,
                    label=style["label"] if seed_index == 0 else None)
            reached = order.loc[order["seed"] == seed, f"reached_{name}"] if prefix == "rank_" else []
            for stage in reached:
                if np.isfinite(stage):
                    value = run.loc[run["stage"] == stage, prefix + name]
                    ax.plot(stage + shift, value, linestyle="none", marker="*", markersize=11, color=style["color"],
                            markeredgecolor="0.2", zorder=4)
    if len(seeds) > 1:
        for seed_index, seed in enumerate(seeds):
            ax.plot([], [], color="0.4", linestyle="none", marker=SEED_MARKERS[seed_index % len(SEED_MARKERS)],
                    label=f"seed {seed}")
    ax.set_ylim(-0.03, 1.03)


def stage_ticks(ax, table, detail: bool):
    """Stage ticks labelled by the matrix trained to reach them; with `detail`, the mean relative gradient noise
    and loss positions of each step."""
    stages = table.groupby("stage").agg(trained=("trained", "first"), noise=("gradient_noise", "mean"),
                                        positions=("positions_used", "mean"))
    labels = []
    for stage, row in stages.iterrows():
        label = STAGE_LABEL.get(row["trained"], row["trained"])
        if detail and np.isfinite(row["noise"]):
            label += f"\nnoise {row['noise']:.2f}\n{row['positions']:.0f} positions"
        labels.append(label)
    ax.set_xticks(stages.index, labels, fontsize=7)
    ax.set_xlim(stages.index.min() - 0.3, stages.index.max() + 0.3)


def render(tables):
    table = tables["population_steps"].sort_values(["seed", "stage"])
    order = tables["population_order"]
    figure, (rank_ax, recall_ax, accuracy_ax) = start_figure(1, 3, figsize=(13.0, 6.0), layout="constrained")

    draw_probes(rank_ax, table, order, "rank_")
    if "rank_threshold" in order.columns and not order.empty:
        rank_ax.axhline(order["rank_threshold"].iloc[0], color="0.5", linestyle=":", linewidth=1,
                        label=f"reached: rank recall ≥ {order['rank_threshold'].iloc[0]:g}")
    rank_ax.plot([], [], color="0.4", linestyle="none", marker="*", markersize=9, label="stage at which a seed reaches it")
    rank_ax.plot([], [], linestyle="none", label=f"each probe reached by the step on its own matrix, not before: "
                 f"{int(order['in_order'].sum())} of {len(order)} seeds")
    rank_ax.set_title("Rank-recall probes (slide 21's order)")
    rank_ax.set_ylabel("rank recall (fraction of wrong candidates outscored)")

    draw_probes(recall_ax, table, order, "probe_")
    recall_ax.set_title("Recall probes (slide 20)")
    recall_ax.set_ylabel(r"recall $R(\hat W, W_*)$")

    loss_ax = accuracy_ax.twinx()
    for seed_index, (seed, run) in enumerate(table.groupby("seed", sort=True)):
        marker = SEED_MARKERS[seed_index % len(SEED_MARKERS)]
        accuracy_ax.plot(run["stage"], run["accuracy"], color="0.15", marker=marker, markersize=4,
                         label="accuracy" if seed_index == 0 else None)
        loss_ax.plot(run["stage"], run["loss"], color="#ff7f0e", linestyle="--", marker=marker, markersize=4,
                     label="loss" if seed_index == 0 else None)
    accuracy_ax.set_ylim(-0.03, 1.03)
    accuracy_ax.set_ylabel("test accuracy on output tokens")
    loss_ax.set_ylabel("test loss (cross-entropy)", color="#ff7f0e")
    accuracy_ax.set_title("Test accuracy and loss after each stage", fontsize=8.5)
    handles = accuracy_ax.get_legend_handles_labels()
    loss_handles = loss_ax.get_legend_handles_labels()
    accuracy_ax.legend(handles[0] + loss_handles[0], handles[1] + loss_handles[1], fontsize=7, loc="upper center",
                       bbox_to_anchor=(0.5, -0.3))

    for ax, detail in ((rank_ax, False), (recall_ax, False), (accuracy_ax, True)):
        stage_ticks(ax, table, detail)
    for ax in (rank_ax, recall_ax):
        ax.legend(fontsize=6.5, loc="upper center", bbox_to_anchor=(0.5, -0.14))
    seeds = table["seed"].nunique()
    figure.suptitle("Three gradient steps on the (sampled) population loss of the 2-layer induction model, from zero "
                    f"(slide 21); {seeds} seed{'s' if seeds > 1 else ''} (the step batches)", fontsize=9)
    return figure
