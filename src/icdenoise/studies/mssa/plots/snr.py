"""Fig. 4: SNR (eq. 6) per layer of unrolled MSSA, one panel per δ, against SNR₀ (1 + ητ)^ℓ (Theorem 3.1)."""

from __future__ import annotations

import numpy as np

from icdenoise.records.figures import start_figure

PHI_STYLE = {"thresholded": {"color": "#1f77b4", "label": "φ = τ·1{softmax > τ} (Theorem 3.1)"},
             "softmax": {"color": "#d62728", "label": "φ = softmax"}}


def render(tables):
    table = tables["snr"]
    deltas = sorted(table["delta"].unique())
    figure, axes = start_figure(1, len(deltas), figsize=(4.2 * len(deltas), 3.8), layout="constrained", squeeze=False)
    for ax, delta in zip(axes[0], deltas):
        mine = table[table["delta"] == delta]
        for phi in mine["phi"].unique():
            rows = mine[mine["phi"] == phi]
            style = PHI_STYLE[phi]
            mean = rows.groupby("layer")[["snr", "theory"]].mean()
            spread = rows.groupby("layer")["snr"].agg(["min", "max"])
            ax.plot(mean.index, mean["snr"], color=style["color"], marker=".", markersize=3, label=style["label"])
            ax.fill_between(spread.index, spread["min"], spread["max"], color=style["color"], alpha=0.15)
            gain = rows["theory_gain"].iloc[0]
            ax.plot(mean.index, mean["theory"], color=style["color"], linestyle="--", linewidth=1,
                    label=f"SNR₀ (1 + ητ)^ℓ, 1 + ητ = {gain:g}" if phi == "thresholded" else f"SNR₀ (1 + η)^ℓ = {gain:g}^ℓ")
        first = mine.iloc[0]
        bound = np.sqrt(np.log(first["tokens"]) / first["p"])
        ax.set_yscale("log")
        ax.set_xlabel("layer ℓ")
        ax.set_ylabel("SNR (eq. 6), mean over the K subspaces")
        ax.set_title(f"δ = {delta:g} ({'inside' if delta <= bound else 'outside'} δ ≲ √(log N / p) = {bound:.2f})")
        ax.legend(fontsize=7)
    first = table.iloc[0]
    figure.suptitle(f"Unrolled MSSA with known bases: n = {first['n']}, K = {first['K']}, p = {first['p']}, N = {first['tokens']}, "
                    f"η = {first['eta']:g}, τ = {first['tau']:g}; {table['seed'].nunique()} draws, band min-max", fontsize=9)
    return figure
