"""Particle variance against the mean-field time τ = ℓη/β, with the β → ∞ line σ² − 2τ, the finite-β ODE
and T*."""

from __future__ import annotations

from icdenoise.records.figures import start_figure

COLORS = ["#1f77b4", "#2ca02c", "#d62728", "#9467bd"]


def render(tables):
    table = tables["variance"]
    t_star = table["t_star"].iloc[0]
    figure, ax = start_figure(figsize=(7.5, 4.8), layout="constrained")
    for beta, color in zip(sorted(table["beta"].unique()), COLORS):
        mine = table[table["beta"] == beta]
        mean = mine.groupby("tau")[["variance", "ode"]].mean()
        spread = mine.groupby("tau")["variance"].agg(["min", "max"])
        ax.plot(mean.index, mean["variance"], color=color, marker=".", markersize=3,
                label=f"β = {beta:g}: particles (mean of {mine['seed'].nunique()} seeds)")
        ax.fill_between(spread.index, spread["min"], spread["max"], color=color, alpha=0.15)
        ax.plot(mean.index, mean["ode"], color=color, linestyle="--", label=f"β = {beta:g}: dv/dτ = −2v/(v + 1/β)")
    line = table.drop_duplicates("tau").sort_values("tau")
    positive = line[line["infinite_beta"] >= 0]
    ax.plot(positive["tau"], positive["infinite_beta"], color="0.4", linestyle=":", linewidth=2, label="β → ∞: v = σ² − 2τ")
    ax.axvline(t_star, color="black", linewidth=0.8, label=f"T* = σ²/2 = {t_star:g}")
    ax.set_xlabel("τ = ℓη/β")
    ax.set_ylabel("variance v of the particles")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=7)
    ax.set_title(f"Particles from a point mass, σ² = {2 * t_star:g}, {table['seed'].nunique()} seeds; band: min-max over seeds", fontsize=9)
    return figure
