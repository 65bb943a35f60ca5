"""Fig. 7 (App. C.3), scaled: a few test digits and, per head, the class token's attention over the patches in the
penultimate layer of one trained model (AoT-MSSA-V in the paper), read from figures/mssa/vision_attention.parquet and
the digits' table."""

from __future__ import annotations

import numpy as np

from icdenoise.records.figures import start_figure

MODEL_NAMES = {"mssa": "AoT-MSSA-V", "mhsa": "AoT-MHSA-V", "vit": "ViT"}


def digit_image(digits, image: int) -> np.ndarray:
    """One digit's pixels (side × side) from the digits' table (columns p0 … p63, row-major)."""
    row = digits[digits["image"] == image].iloc[0]
    pixels = row[[column for column in digits.columns if column.startswith("p") and column[1:].isdigit()]].to_numpy(float)
    side = int(round(np.sqrt(pixels.size)))
    return pixels.reshape(side, side)


def render(tables, model: str, seed: int):
    attention, digits = tables["attention"], tables["digits"]
    mine = attention[(attention["model"] == model) & (attention["seed"] == seed)]
    images = list(dict.fromkeys(mine["image"]))
    heads = sorted(mine["head"].unique())
    figure, axes = start_figure(len(images), len(heads) + 1, figsize=(1.45 * (len(heads) + 1) + 0.6, 1.5 * len(images) + 0.5),
                                layout="constrained", squeeze=False)
    for row, image in enumerate(images):
        pixels = digit_image(digits, image)
        side = pixels.shape[0]
        maps = mine[mine["image"] == image]
        axes[row, 0].imshow(pixels, cmap="gray_r", vmin=0, vmax=1, extent=(0, side, side, 0))
        axes[row, 0].set_ylabel(f"digit {maps['label'].iloc[0]}\n(image {image})", fontsize=8)
        for column, head in enumerate(heads, start=1):
            head_map = maps[maps["head"] == head]
            grid = np.zeros((head_map["patch_row"].max() + 1, head_map["patch_col"].max() + 1))
            grid[head_map["patch_row"], head_map["patch_col"]] = head_map["weight"] / head_map["weight"].sum()
            ax = axes[row, column]
            shown = ax.imshow(grid, cmap="magma", vmin=0, extent=(0, side, side, 0))
            ax.contour(np.arange(side) + 0.5, np.arange(side) + 0.5, pixels, levels=[0.5], colors="#7fd3ff", linewidths=0.8)
            figure.colorbar(shown, ax=ax, fraction=0.046, pad=0.02).ax.tick_params(labelsize=5)
            if row == 0:
                ax.set_title(f"head {head}", fontsize=8)
    for ax in axes.ravel():
        ax.set_xticks([])
        ax.set_yticks([])
    first = mine.iloc[0]
    axes[0, 0].set_title("test image", fontsize=8)
    figure.suptitle(f"{MODEL_NAMES[model]}, seed {seed}: the [CLS] token's attention over the {first['patch_size']}×{first['patch_size']} "
                    f"patches, per head,\nin layer {first['layer'] + 1} of {first['layers']} (penultimate), renormalised over the patches; "
                    f"blue: the digit's outline\n({first['scale']}: 8×8 digits, not ImageNet)", fontsize=8)
    return figure
