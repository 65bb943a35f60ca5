"""Figure 4(b): the model trained at d scored on subspaces of other dimensions d', from
`subspace_shift`'s table (which carries the Bayes and zero reference values)."""

from __future__ import annotations

from matplotlib.ticker import NullFormatter, ScalarFormatter

from icdenoise.records.figures import BAYES_COLOR, ZERO_COLOR, start_figure

LENGTH_COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b"]


def render(tables):
    """From tables["shift"]: y = MSE·n/d' against d' per evaluation length (mean and min–max over seeds);
    the untrained models in grey; the Bayes line σ0²σ_z²/(σ0²+σ_z²) and the zero predictor σ0²."""
    table = tables["shift"]
    figure, ax = start_figure(figsize=(8, 4))
    references = {"bayes": table["bayes_loss_per_dim"].iloc[0], "zero": table["zero_loss_per_dim"].iloc[0]}
    trained_dim = int(table["training_d"].iloc[0])
    lengths = sorted(table["L"].unique())
    for index, length in enumerate(lengths):
        for stage, color, label in (
            ("final", LENGTH_COLORS[index % len(LENGTH_COLORS)], f"trained, L = {length}"),
            ("initial", "lightgrey", "untrained" if index == 0 else None),
        ):
            curve = table[(table["L"] == length) & (table["stage"] == stage)].groupby("d_prime")["loss_per_dim"]
            summary = curve.agg(["mean", "min", "max"])
            ax.fill_between(summary.index, summary["min"], summary["max"], color=color, alpha=0.25, linewidth=0)
            ax.plot(summary.index, summary["mean"], marker="o", markersize=3, color=color, label=label)
    ax.axhline(references["bayes"], color=BAYES_COLOR, label=f"Bayes σ0²σ_z²/(σ0²+σ_z²) = {references['bayes']:.3f}")
    ax.axhline(references["zero"], color=ZERO_COLOR, linestyle="--", label=f"zero predictor σ0² = {references['zero']:g}")
    ax.axvline(trained_dim, color="black", linewidth=0.8, linestyle=":", label=f"training d = {trained_dim}")
    ax.set_yscale("log")
    ax.set_yticks([0.5, 0.67, 1, 1.5, 2, 3, 4])
    ax.yaxis.set_major_formatter(ScalarFormatter())
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("subspace dimension d' at inference")
    ax.set_ylabel("MSE · n / d'")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    ax.set_title("Figure 4(b) — a model trained at d = %d denoises other subspace dimensions" % trained_dim, fontsize=9)
    figure.tight_layout()
    return figure
