"""The learned-depth network: per-layer β_ℓ, η_ℓ and the mean-field time they reach, against the
theory's constant β, η and T*, and its test MSE against two-stage and Bayes by N."""

from __future__ import annotations

from icdenoise.records.figures import BAYES_COLOR, start_figure

STYLE = {"learned": ("#2ca02c", "learned network (mean over seeds)"), "two_stage": ("#1f77b4", "two-stage (Fig. 4(a)'s β, η, L)"),
         "bayes": (BAYES_COLOR, "Bayes (true prior)")}


def render(tables):
    parameters, mse = tables["learned_parameters"], tables["learned_depth"]
    first = parameters.iloc[0]
    figure, axes = start_figure(1, 4, figsize=(18, 4.2), layout="constrained")
    for ax, column, theory, label in ((axes[0], "beta", first["theory_beta"], "β_ℓ"), (axes[1], "eta", first["theory_eta"], "η_ℓ"),
                                      (axes[2], "tau", None, "τ_ℓ = Σ_{k≤ℓ} η_k/β_k")):
        for seed, mine in parameters.groupby("seed"):
            ax.plot(mine["layer"], mine[column], marker="o", markersize=3, linewidth=0.8, alpha=0.7, label=f"seed {seed}")
        if theory is not None:
            ax.axhline(theory, color="black", linestyle="--", label=f"theory {theory:.4g}")
        else:
            ax.axhline(first["t_star"], color="black", linestyle="--", label=f"T* = σ²/2 = {first['t_star']:g}")
        ax.set_xlabel("layer ℓ")
        ax.set_ylabel(label)
        ax.legend(fontsize=6)
    axes[0].set_yscale("log")
    axes[0].set_title(f"learned β_c: {parameters.groupby('seed')['beta_c'].first().mean():.3g} (theory 1/σ² = {first['theory_beta_c']:g})", fontsize=8)
    axes[1].set_title(f"theory η = βσ²/(2L) for L = {parameters['layer'].max()} layers", fontsize=8)
    ax = axes[3]
    for name, (color, label) in STYLE.items():
        mine = mse[mse["estimator"] == name]
        summary = mine.groupby("N")["mse_over_sigma2"].agg(["mean", "sem"])
        ax.errorbar(summary.index, summary["mean"], yerr=summary["sem"], color=color, marker="o", capsize=2, label=label)
    ax.set_xscale("log")
    ax.set_xlabel("tokens per context N")
    ax.set_ylabel("MSE / σ²")
    ax.legend(fontsize=7)
    ax.set_title("test MSE (error bars: SEM over contexts)", fontsize=8)
    figure.suptitle(f"Learned depth: {parameters['layer'].max()} Gaussian-kernel layers with learned β_ℓ, η_ℓ and a learned "
                    "cross-attention (trained by MSE on all-token prompts)", fontsize=10)
    return figure
