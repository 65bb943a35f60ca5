"""MSE/n of x̂ = c·x̃ against c, measured and closed form, with c* marked."""

from __future__ import annotations

from icdenoise.records.figures import BAYES_COLOR, start_figure


def render(tables):
    table = tables["scales"].sort_values("scale")
    figure, ax = start_figure(figsize=(4.5, 3.2))
    ax.errorbar(table["scale"], table["mse"], yerr=table["sem"], marker="o", linestyle="none", label="fresh prompts")
    ax.plot(table["scale"], table["expected"], color="grey", label="((1 − c)² m + c² n σ_z²) / n")
    ax.axvline(table["optimal_scale"].iloc[0], color=BAYES_COLOR, linestyle="--", label="c*")
    ax.set_xlabel("scale c")
    ax.set_ylabel("MSE / n")
    ax.legend(fontsize=7)
    figure.tight_layout()
    return figure
