"""Fig. 5 (scaled): training loss (a) and validation loss (b) of the three causal language models against AdamW steps,
one line per seed, with the unigram loss of the held-out text."""

from __future__ import annotations

from icdenoise.records.figures import start_figure
from icdenoise.studies.mssa.plots.regression import MODEL_STYLE

LABELS = {"mssa": "AoT-MSSA-L", "mhsa": "AoT-MHSA-L", "transformer": "transformer (GPT-2 style, MLPs)"}


def render(tables):
    curves, final = tables["curves"], tables["final"]
    figure, axes = start_figure(1, 2, figsize=(9.2, 3.6), layout="constrained", sharey=True)
    for ax, column, title in zip(axes, ("train_loss", "val_loss"), ("(a) training loss", "(b) validation loss (held-out plays)")):
        for model, style in MODEL_STYLE.items():
            mine = curves[curves["model"] == model]
            if mine.empty:
                continue
            sizes = final[final["model"] == model].iloc[0]
            label = f"{LABELS[model]}: {sizes['layers']} layers, width {sizes['width']}, {sizes['parameters'] / 1e3:.0f}k parameters"
            for index, (_, rows) in enumerate(mine.groupby("seed")):
                ax.plot(rows["step"], rows[column], color=style["color"], alpha=0.75, linewidth=1.0,
                        label=label if index == 0 else None)
        unigram = final["unigram_loss"].mean()
        ax.axhline(unigram, color="0.5", linestyle=":", linewidth=1.0, label=f"unigram loss of the held-out text ({unigram:.2f})")
        ax.set_xlabel("AdamW step")
        ax.set_title(title)
    axes[0].set_ylabel("cross-entropy (nats per character)")
    seeds = sorted(final["seed"].unique())
    axes[1].legend(fontsize=7, title=f"one line per seed ({len(seeds)} seeds)", title_fontsize=7)
    return figure
