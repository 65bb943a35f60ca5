"""Exploratory, no claim and no verdict: would more seeds or a denser width grid decide the factual-recall slopes?

The memory study's claims factual_parameters_scale_with_facts and factual_mlp_storage_scales_with_facts (slide 11,
m·d ≳ S·R) fit a log-log slope to the MLP width m* at which recall, averaged over the seeds, first reaches
memory.factual.recall_threshold (`factual.training.needed_sizes`), one crossing per size S = R. This script trains
the same attention + MLP grid points (`factual.training.recall_grid` on config/config.yaml's memory.factual
block, its sizes and widths replaced) at the sizes, widths and seeds it is given, and prints, per size:

- the mean recall at each width;
- the crossing m* from all the seeds, and its 2.5, 50 and 97.5 percentiles under a bootstrap over the seeds (the
  seeds resampled with replacement), with the share of resamples whose mean never or always reaches the threshold.

A crossing whose bootstrap range stays wide as seeds are added sits on a plateau of the mean recall near the
threshold: more of the same measurement does not narrow it. The rows go to `--out` (Parquet) for a second look.

With `--grid`, a built `figures/memory/factual.parquet`, it also prints the attention-only crossing d* of
factual_attention_only_d (d ≳ R + A_max) per pair (R, A_max) from all seeds and from each seed alone: seeds that
agree while the pairs of one R + A_max do not show a misfit of the law, which more seeds do not narrow either.
It reads no ledger and writes nothing a rule reads. Run it from the repository's root.

    python -m icdenoise.studies.memory.tools.factual_crossings --sizes 12 16 24 32 --seeds 0 1 2 3 4 5 6 7 \\
        --widths 16 23 32 45 64 91 128 181 256 362 512 --grid figures/memory/factual.parquet
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from icdenoise.maths.thresholds import log_crossing
from icdenoise.pipeline.config import load_yaml
from icdenoise.studies.memory.factual.training import recall_grid

CONFIG = Path("config") / "config.yaml"


def recall_rows(block: dict, sizes: list[int], widths: list[int], seeds: list[int]) -> pd.DataFrame:
    """`factual.training.recall_grid` of the attention + MLP model, per seed, on the block with its sizes S = R
    and MLP widths replaced by `sizes` and `widths`: the study's own grid points, only more of them."""
    grid = {**block, "attention_mlp": {**block["attention_mlp"], "sizes": sizes, "widths": widths}}
    rows, start = [], time.perf_counter()
    for seed in seeds:
        rows.append(recall_grid(grid, "attention_mlp", seed))
        print(f"seed {seed}: {time.perf_counter() - start:.0f} s", flush=True)
    return pd.concat(rows, ignore_index=True)


def bootstrap_crossings(group: pd.DataFrame, threshold: float, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """The crossing of the mean recall over seeds drawn with replacement from the group's seeds, per resample
    (NaN where the resampled mean never or always reaches the threshold)."""
    seeds = np.unique(group["seed"])
    by_seed = {seed: group[group["seed"] == seed] for seed in seeds}
    crossings = np.empty(resamples)
    for index in range(resamples):
        drawn = pd.concat([by_seed[seed] for seed in rng.choice(seeds, seeds.size)])
        crossings[index] = log_crossing(drawn["width"], drawn["recall"], threshold)[0]
    return crossings


def attention_only_crossings(grid: pd.DataFrame, threshold: float) -> pd.DataFrame:
    """Per attention-only pair (R, A_max) of a built recall grid: R + A_max, the crossing d* of the recall averaged
    over the seeds, and each seed's own crossing (NaN where the grid does not bracket it)."""
    rows = []
    for (relations, answers), pair in grid[grid["model"] == "attention_only"].groupby(["relations", "answers"]):
        row = {"R": relations, "A_max": answers, "R + A_max": relations + answers,
               "d* (mean)": log_crossing(pair["d"], pair["recall"], threshold)[0]}
        for seed, alone in pair.groupby("seed"):
            row[f"d* (seed {seed})"] = log_crossing(alone["d"], alone["recall"], threshold)[0]
        rows.append(row)
    return pd.DataFrame(rows).sort_values(["R + A_max", "R"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", required=True, help="S = R values")
    parser.add_argument("--seeds", type=int, nargs="+", required=True, help="training seeds")
    parser.add_argument("--widths", type=int, nargs="+", required=True, help="MLP widths m, increasing")
    parser.add_argument("--grid", type=Path, help="a built figures/memory/factual.parquet: also print the "
                        "attention-only crossings per pair and per seed")
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples over the seeds (default 1000)")
    parser.add_argument("--out", type=Path, default=Path("runs") / "explore" / "factual_crossings.parquet",
                        help="Parquet of every trained point (default runs/explore/factual_crossings.parquet)")
    args = parser.parse_args()
    if args.widths != sorted(set(args.widths)):
        parser.error("--widths must increase strictly")
    torch.set_num_threads(1)
    block = load_yaml(CONFIG)["memory"]["factual"]
    threshold = block["recall_threshold"]
    rows = recall_rows(block, args.sizes, args.widths, args.seeds)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    rows.to_parquet(args.out)
    pd.set_option("display.width", 200)
    print(f"\nmean recall over seeds {args.seeds}:")
    print(rows.pivot_table(index="subjects", columns="width", values="recall").round(4).to_string())
    print(f"\ncrossing of recall {threshold} (log-interpolated width), and over {args.resamples} resamples of the seeds:")
    rng = np.random.default_rng(0)
    for size, group in rows.groupby("subjects"):
        crossing, reason = log_crossing(group["width"], group["recall"], threshold)
        boot = bootstrap_crossings(group, threshold, args.resamples, rng)
        finite = boot[np.isfinite(boot)]
        low, middle, high = np.percentile(finite, [2.5, 50, 97.5]) if finite.size else (math.nan,) * 3
        print(f"S = R = {size}: m* = {crossing:.1f} {reason}; bootstrap 2.5/50/97.5%: {low:.1f} / {middle:.1f} / "
              f"{high:.1f}; off the grid in {1 - finite.size / boot.size:.0%} of resamples")
    if args.grid:
        print(f"\nattention-only crossing d* of recall {threshold}, from {args.grid}:")
        print(attention_only_crossings(pd.read_parquet(args.grid), threshold).round(2).to_string(index=False))
    print(f"\nrows: {args.out}")


if __name__ == "__main__":
    main()
