"""Induction heads (Bietti 2025 slides 16 and 20): test accuracy on the tokens after a trigger's second and later
occurrences over training, against the slides' ∼55% (1 layer) and ∼99% (2 layers); the memory-recall probes of
the 2-layer models (W_OV², W_KQ², W_KQ¹) and of the 1-layer models (W_OV¹, W_KQ¹) against their ideal targets.
With tables["induction_order"] (`learning_order`'s table) the 2-layer panels also mark the threshold and the
step at which each probe is learned. `bigrams` names the setting in the title: the synthetic Dirichlet π_b
(memory.induction) or Shakespeare's character bigrams (memory.induction_shakespeare)."""

from __future__ import annotations

from icdenoise.records.figures import start_figure

SLIDES_ACCURACY = {1: 0.55, 2: 0.99}  # slide 16: "1-layer transformer fails: ∼55%", "2-layer ... succeeds: ∼99%"
LAYERS_COLOR = {1: "#ff7f0e", 2: "#1f77b4"}
OPTIMIZER_LINESTYLE = {"adam": "-", "sgd": "--"}
PROBE_STYLE = {
    "probe_wov2": {"color": "#d62728", "label": r"$W_{OV}^2$: $e_k \mapsto u_k$"},
    "probe_wkq2": {"color": "#2ca02c", "label": r"$W_{KQ}^2$: $e_q \mapsto W_{OV}^1 e_q$, triggers $q$"},
    "probe_wkq1": {"color": "#9467bd", "label": r"$W_{KQ}^1$: $p_t \mapsto p_{t-1}$"},
    "probe_wov1": {"color": "#8c564b", "label": r"$W_{OV}^1$: $e_k \mapsto u_k$"},
}
TWO_LAYER_PROBES = ("probe_wov2", "probe_wkq2", "probe_wkq1")
BIGRAMS = {"dirichlet": "a synthetic Dirichlet bigram model",
           "shakespeare": "Shakespeare's character bigrams (the slides' π_b)"}
ONE_LAYER_PROBES = ("probe_wov1", "probe_wkq1")


def layers_name(layers: int) -> str:
    return f"{layers} layer{'s' if layers > 1 else ''}"


def draw_band(ax, rows, column, **style):
    """The mean over seeds of `column` against the step, with the min-max band when there are several seeds."""
    by_step = rows.groupby("step")[column]
    mean, low, high = by_step.mean(), by_step.min(), by_step.max()
    ax.plot(mean.index, mean.to_numpy(), **style)
    if rows["seed"].nunique() > 1:
        ax.fill_between(mean.index, low.to_numpy(), high.to_numpy(), color=style.get("color"), alpha=0.15, linewidth=0)


def mark_learned(ax, order, optimizer):
    """The learned threshold and, per seed, a dotted vertical line at each probe's learned step."""
    runs = order[(order["layers"] == 2) & (order["optimizer"] == optimizer)]
    if runs.empty:
        return
    ax.axhline(runs["threshold"].iloc[0], color="0.5", linewidth=0.8, linestyle=":",
               label=f"learned: recall ≥ {runs['threshold'].iloc[0]:g}")
    for column in TWO_LAYER_PROBES:
        for step in runs[column.replace("probe_", "learned_")].dropna():
            ax.axvline(step, color=PROBE_STYLE[column]["color"], linewidth=0.8, linestyle=":")
    ax.text(0.02, 0.02, "order: " + "; ".join(runs["order"].unique()), transform=ax.transAxes, fontsize=7)


def render(tables, bigrams="dirichlet"):
    table = tables["induction"]
    order = tables.get("induction_order")
    optimizers = sorted(table["optimizer"].unique())
    first_step = table.loc[table["step"] > 0, "step"].min()
    figure, axes = start_figure(2, 2, figsize=(9.6, 7.0), layout="constrained")
    accuracy_ax, one_layer_ax = axes[0]
    probe_axes = dict(zip(optimizers, axes[1]))
    for ax in axes[1][len(optimizers):]:  # a setting trained with one optimiser: one probe panel
        ax.set_visible(False)

    for (layers, optimizer), rows in table.groupby(["layers", "optimizer"]):
        draw_band(accuracy_ax, rows, "accuracy", color=LAYERS_COLOR[layers], linestyle=OPTIMIZER_LINESTYLE[optimizer],
                  label=f"{layers_name(layers)}, {optimizer}")
    for layers, level in SLIDES_ACCURACY.items():
        accuracy_ax.axhline(level, color=LAYERS_COLOR[layers], linestyle=":", linewidth=1,
                            label=f"slides, {layers_name(layers)}: ∼{level:.0%}")
    accuracy_ax.set_ylim(0, 1.02)
    accuracy_ax.set_ylabel("test accuracy on output tokens\n(after a trigger's 2nd+ occurrence)")
    accuracy_ax.set_title("Accuracy (slide 16)")
    accuracy_ax.legend(fontsize=7, loc="upper left")

    for optimizer, ax in probe_axes.items():
        rows = table[(table["layers"] == 2) & (table["optimizer"] == optimizer)]
        for column in TWO_LAYER_PROBES:
            draw_band(ax, rows, column, **PROBE_STYLE[column])
        if order is not None:
            mark_learned(ax, order, optimizer)
        ax.set_title(f"2-layer model, {optimizer}: memory-recall probes (slide 20)")

    one_layer = table[table["layers"] == 1]
    for optimizer, rows in one_layer.groupby("optimizer"):
        for column in ONE_LAYER_PROBES:
            style = PROBE_STYLE[column]
            draw_band(one_layer_ax, rows, column, color=style["color"], linestyle=OPTIMIZER_LINESTYLE[optimizer],
                      label=f"{style['label']}, {optimizer}")
    one_layer_ax.set_title(r"1-layer model (trains $W_{KQ}^1$, $W_{OV}^1$): probes")
    if one_layer.empty:
        one_layer_ax.text(0.5, 0.5, "no 1-layer runs in this setting", transform=one_layer_ax.transAxes, ha="center",
                          va="center", fontsize=9, color="0.4")

    for ax in [one_layer_ax, *probe_axes.values()]:
        ax.set_ylim(-0.02, 1.02)
        ax.set_ylabel(r"recall $R(\hat W, W_*)$")
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7, loc="center right")
    for ax in axes.flat:
        ax.set_xscale("symlog", linthresh=first_step, linscale=0.3)
        ax.set_xlim(0, table["step"].max())
        ax.set_xlabel("training step (linear up to the first record, then log)")
    first = table.iloc[0]
    seeds = table["seed"].nunique()
    figure.suptitle(f"Bigrams with triggers on {BIGRAMS[bigrams]}: N = {first['vocabulary']}, K = {first['triggers']}, "
                    f"T = {first['length']}, d = {first['d']}; frozen random embeddings; {seeds} seed{'s' if seeds > 1 else ''}"
                    + (", band min-max" if seeds > 1 else ""), fontsize=9)
    return figure
