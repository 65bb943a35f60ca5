"""Plain softmax φ across η, p and N: the SNR gain SNR_ℓ/SNR₀ per layer (one panel per factor), from
`snr.softmax_sweep_table`."""

from __future__ import annotations

import matplotlib as mpl

from icdenoise.records.figures import start_figure

FACTOR_LABEL = {"eta": "η", "p": "p", "tokens": "N"}


def render(tables):
    """From tables["layers"] (SNR per layer) and tables["gains"] (layers above SNR₀ per point and seed)."""
    layers, gains = tables["layers"], tables["gains"]
    factors = list(dict.fromkeys(layers["factor"]))
    figure, axes = start_figure(1, len(factors), figsize=(4 * len(factors), 3.4), layout="constrained", squeeze=False)
    for ax, factor in zip(axes[0], factors):
        mine = layers[layers["factor"] == factor]
        values = sorted(mine["value"].unique())
        colors = mpl.colormaps["viridis"].resampled(len(values))
        for index, value in enumerate(values):
            rows = mine[mine["value"] == value]
            gain = (rows["snr"] / rows.groupby("seed")["snr"].transform("first")).groupby(rows["layer"]).mean()
            above = gains[(gains["factor"] == factor) & (gains["value"] == value)]["layers_above"].median()
            ax.plot(gain.index, gain.to_numpy(), color=colors(index), marker=".", markersize=3,
                    label=f"{FACTOR_LABEL[factor]} = {value:g} (above SNR₀ for {above:g} layers)")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xlabel("layer ℓ")
        ax.set_ylabel("SNR_ℓ / SNR₀")
        ax.set_yscale("log")
        ax.legend(fontsize=6.5)
        ax.set_title(f"sweep over {FACTOR_LABEL[factor]}", fontsize=9)
    first = layers.iloc[0]
    figure.suptitle(f"Plain softmax φ: how long the layers keep the SNR above SNR₀; δ = {first['delta']:g}, K = {first['K']}, "
                    f"mean over {layers['seed'].nunique()} draws (others at the Fig. 4 setting)", fontsize=9)
    return figure
