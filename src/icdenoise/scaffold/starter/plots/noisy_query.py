"""MSE/n of the noisy query over σ_z², per case, against 1."""

from __future__ import annotations

from icdenoise.records.figures import start_figure


def render(tables):
    table = tables["noisy_query"]
    figure, ax = start_figure(figsize=(4.5, 3.2))
    ax.errorbar(range(len(table)), table["ratio"], yerr=table["sem"] / table["sigma_z_sq"], marker="o", linestyle="none")
    ax.axhline(1.0, color="grey", linestyle="--", label="σ_z²")
    ax.set_xticks(range(len(table)), table["case"])
    ax.set_ylabel("MSE / n over σ_z²")
    ax.legend(fontsize=7)
    figure.tight_layout()
    return figure
