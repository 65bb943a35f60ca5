"""The Gaussian check: eigenvalues of the particles' covariance against dΓ/dt = −2Γ(I + βΓ)⁻¹."""

from __future__ import annotations

from icdenoise.records.figures import start_figure

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]


def render(tables):
    table = tables["gaussian"]
    first = table.iloc[0]
    figure, ax = start_figure(figsize=(7.5, 4.8), layout="constrained")
    for component, color in zip(sorted(table["component"].unique()), COLORS):
        mine = table[table["component"] == component]
        mean = mine.groupby("t")[["eigenvalue", "ode"]].mean()
        spread = mine.groupby("t")["eigenvalue"].agg(["min", "max"])
        ax.plot(mean.index, mean["eigenvalue"], color=color, marker=".", markersize=3, linestyle="none", label=f"λ_{component + 1}: particles")
        ax.fill_between(spread.index, spread["min"], spread["max"], color=color, alpha=0.15)
        ax.plot(mean.index, mean["ode"], color=color, label=f"λ_{component + 1}: ODE")
        prior = mine["prior"].iloc[0]
        ax.axhline(prior, color=color, linestyle=":", label=f"Σ₀ eigenvalue {prior:g}")
        ax.axvline(mine["t_reach"].iloc[0], color=color, linestyle="-.", linewidth=0.8,
                   label=f"ODE reaches it at t = {mine['t_reach'].iloc[0]:.2f}")
    ax.axvline(first["t_beta"], color="black", linewidth=1, label=f"T_β = βσ²/2 = {first['t_beta']:g}")
    ax.set_xlabel("t = ℓη")
    ax.set_ylabel("eigenvalue of the particle covariance")
    ax.legend(fontsize=7, ncols=2)
    ax.set_title(f"Gaussian prior in 2-D: β = {first['beta']:g}, η = {first['eta']:g}, σ² = {first['sigma_z_sq']:g}, "
                 f"{table['seed'].nunique()} seeds (band: min-max)", fontsize=9)
    return figure
