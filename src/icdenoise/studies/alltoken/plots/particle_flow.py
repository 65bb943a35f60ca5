"""Particle positions across depth for each β, with the number of clusters formed."""

from __future__ import annotations

from icdenoise.records.figures import start_figure


def render(tables):
    table = tables["particle_flow"]
    betas = sorted(table["beta"].unique())
    figure, axes = start_figure(2, len(betas), figsize=(5 * len(betas), 6.5), sharex=True, layout="constrained",
                                gridspec_kw={"height_ratios": [3, 1]})
    for column, beta in enumerate(betas):
        mine = table[table["beta"] == beta]
        ax = axes[0, column]
        for _, path in mine.groupby("particle"):
            ax.plot(path["depth"], path["position"], color="0.35", linewidth=0.5, alpha=0.6)
        for centre in sorted(mine["clean"].round(6).unique()):
            ax.axhline(centre, color="#2ca02c", linewidth=2, alpha=0.3)
        theory = mine["theory_depth"].iloc[0]
        ax.axvline(theory, color="#d62728", linestyle="--", label=f"L* = βσ²/(2η) = {theory}")
        ax.set_title(f"β = {beta:g}, η = {mine['eta'].iloc[0]:.4g}")
        ax.set_ylabel("particle position")
        ax.legend(fontsize=7, loc="upper right")
        counts = mine.groupby("depth")["clusters"].first()
        ax = axes[1, column]
        ax.step(counts.index, counts.to_numpy(), where="post", color="#1f77b4")
        ax.axvline(theory, color="#d62728", linestyle="--")
        ax.set_yscale("log")
        ax.set_xlabel("depth ℓ (layers)")
        ax.set_ylabel("clusters")
        ax.set_title(f"clusters at L*: {counts.loc[theory]}, at depth {counts.index.max()}: {counts.iloc[-1]}", fontsize=8)
    figure.suptitle(f"Stage-1 particle flow, σ² = {table['sigma_z_sq'].iloc[0]:g}, {table['particle'].nunique()} particles; η_β chosen so that L* is the same for every β "
                    "(green: the prior's modes; clusters: gaps wider than the configured cluster_gap)", fontsize=9)
    return figure
