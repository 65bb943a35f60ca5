"""Where Theorem 3.1 holds: the measured per-layer SNR ratio over 1 + ητ for each swept η, p and δ,
and the attention leakage that ends the rate (one row of panels per factor)."""

from __future__ import annotations

import matplotlib as mpl

from icdenoise.records.figures import start_figure

FACTOR_LABEL = {"eta": "η", "p": "p", "delta": "δ"}


def render(tables):
    layers, departures = tables["sweep"], tables["departures"]
    factors = list(dict.fromkeys(layers["factor"]))
    figure, axes = start_figure(len(factors), 2, figsize=(9.5, 2.9 * len(factors)), layout="constrained", squeeze=False)
    for row, factor in zip(axes, factors):
        mine = layers[(layers["factor"] == factor) & (layers["layer"] >= 1)]
        values = sorted(mine["value"].unique())
        colors = mpl.colormaps["viridis"].resampled(len(values))
        for index, value in enumerate(values):
            rows = mine[mine["value"] == value]
            ratio = (rows["ratio"] / rows["theory_gain"]).groupby(rows["layer"]).mean()
            leakage = rows.groupby("layer")["leakage"].mean()
            departure = departures[(departures["factor"] == factor) & (departures["value"] == value)]["departure_layer"].median()
            label = f"{FACTOR_LABEL[factor]} = {value:g}" + ("" if departure != departure else f" (departs at ℓ = {departure:g})")
            row[0].plot(ratio.index, ratio.to_numpy(), color=colors(index), marker=".", markersize=3, label=label)
            row[1].plot(leakage.index, leakage.to_numpy(), color=colors(index), marker=".", markersize=3)
        tolerance = departures["tolerance"].iloc[0]
        row[0].axhline(1.0, color="black", linewidth=0.8)
        row[0].axhspan(1 - tolerance, 1 + tolerance, color="0.85", zorder=0, label=f"± {tolerance:g}: departure")
        row[0].set_ylabel("(SNR_ℓ / SNR_ℓ₋₁) / (1 + ητ)")
        row[0].legend(fontsize=6.5)
        row[1].set_ylabel("leakage: weight on other\nsubspaces' tokens, over τ")
        for ax in row:
            ax.set_xlabel("layer ℓ")
        row[0].set_title(f"sweep over {FACTOR_LABEL[factor]} (others at the Fig. 4 setting)", fontsize=9)
    first = layers.iloc[0]
    figure.suptitle(f"Where Theorem 3.1's rate holds: φ = {first['phi']}, τ = {first['tau']:g}, K = {first['K']}, N = {first['tokens']}; "
                    f"mean over {layers['seed'].nunique()} draws", fontsize=9)
    return figure
