"""Factual recall's training dynamics (Bietti 2025 slide 13, after Nichani, Lee & Bietti 2024): gradient descent on a
one-layer linear-attention model with one-hot embeddings from a small positive initialisation. Left: the KL of the
prediction to p(a | r) (uniform over the relation's A answers) and to p(a | s, r) (the stored fact) against the step,
with log A, the KL to the fact of a prediction that knows r but not s (p(a | r) itself), and ½ log A; shaded, the
records in slide 13's intermediate "hallucination" phase, read off the mean curves as KL to p(a | r) < ½ log A ≤ KL to
the fact (closer to p(a | r) than to knowing the fact, on the same scale). Right: the accuracy, with 1/A, the accuracy
of a guess within A_r."""

from __future__ import annotations

import numpy as np

from icdenoise.records.figures import start_figure
from icdenoise.studies.memory.plots.induction import draw_band

KL_STYLE = {
    "kl_relation": {"color": "#1f77b4", "label": r"KL$(p(a|r)\,\|\,\hat p)$: to the relation's answers"},
    "kl_fact": {"color": "#d62728", "label": r"KL$(p(a|s,r)\,\|\,\hat p)$: to the fact"},
}
PHASE_COLOR = "#ffbb78"


def phase_spans(steps: np.ndarray, inside: np.ndarray) -> list[tuple[float, float]]:
    """The step intervals to shade for the records where `inside` holds: each such record covers the interval from
    the midpoint with the previous record to the midpoint with the next (its own step at either end)."""
    edges = np.concatenate([[steps[0]], (steps[1:] + steps[:-1]) / 2, [steps[-1]]])
    spans = []
    for index in np.flatnonzero(inside):
        low, high = edges[index], edges[index + 1]
        if spans and spans[-1][1] == low:
            spans[-1] = (spans[-1][0], high)
        else:
            spans.append((low, high))
    return spans


def render(tables):
    table = tables["factual_dynamics"].sort_values("step")
    first_step = table.loc[table["step"] > 0, "step"].min()
    answers = int(table["answers"].iloc[0])
    log_a = float(np.log(answers))
    means = table.groupby("step")[["kl_relation", "kl_fact"]].mean()
    inside = ((means["kl_relation"] < log_a / 2) & (means["kl_fact"] >= log_a / 2)).to_numpy()
    spans = phase_spans(means.index.to_numpy(float), inside)
    figure, (kl_ax, accuracy_ax) = start_figure(1, 2, figsize=(10.4, 5.2), layout="constrained")

    for column, style in KL_STYLE.items():
        draw_band(kl_ax, table, column, **style)
    kl_ax.axhline(log_a, color="0.3", linestyle=":", linewidth=1,
                  label=f"log A = {log_a:.3g} (A = {answers}): KL to the fact of p(a|r)")
    kl_ax.axhline(log_a / 2, color="0.6", linestyle=":", linewidth=1, label="½ log A")
    kl_ax.set_yscale("log")
    kl_ax.set_ylabel("KL divergence (nats), mean over facts and noise draws")
    kl_ax.set_title("KL to p(a|r) and to p(a|s,r) (slide 13)")

    draw_band(accuracy_ax, table, "accuracy", color="0.15", label="accuracy (argmax is the fact)")
    accuracy_ax.axhline(1 / answers, color="0.3", linestyle=":", linewidth=1,
                        label=f"1/A = {1 / answers:.3g}: a guess within A_r")
    accuracy_ax.set_ylim(-0.02, 1.02)
    accuracy_ax.set_ylabel("accuracy on the training sequences")
    accuracy_ax.set_title("Accuracy")

    for ax in (kl_ax, accuracy_ax):
        for low, high in spans:
            ax.axvspan(low, high, color=PHASE_COLOR, alpha=0.35, linewidth=0)
        phase = ("hallucination phase: KL to p(a|r) < ½ log A ≤ KL to the fact" if spans
                 else "no record with KL to p(a|r) < ½ log A ≤ KL to the fact")
        ax.fill_between([], [], color=PHASE_COLOR, alpha=0.35, linewidth=0, label=phase)
        ax.set_xscale("symlog", linthresh=first_step, linscale=0.3)
        ax.set_xlim(0, table["step"].max())
        ax.set_xlabel("gradient-descent step (linear up to the first record, then log)")
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16))
    seeds = table["seed"].nunique()
    figure.suptitle("Linear attention, one-hot embeddings, gradient descent from a small init: "
                    f"{seeds} seed{'s' if seeds > 1 else ''}" + (", mean with min-max band" if seeds > 1 else ""), fontsize=9)
    return figure
