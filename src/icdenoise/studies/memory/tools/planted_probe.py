"""Exploratory, no claim and no verdict: slide 24's three gradient steps at points off the planted-token grids.

The memory study's claim planted_boundary_slope_in_t_above_floor reads the d at which test recall crosses
memory.planted.success_threshold, per length T, on the regime grid of config/memory_full.yaml (d up to 4096). This
script runs the same computation (`planted.three_steps`, the block of config/config.yaml's memory.planted and its
execution chunk size) at the lengths, widths d, sample count n and seeds it is given, one point at a time, and
prints each point's recall after step 1, mean attention on the planted position after step 2, recall after step 3
and seconds. It shows how far beyond a grid a crossing lies. It reads no ledger and writes nothing a rule reads. Run it from the repository's root.

    python -m icdenoise.studies.memory.tools.planted_probe --lengths 160 320 --ds 4096 8192 11585 --samples 1024 --seeds 0
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import torch

from icdenoise.pipeline.config import load_yaml
from icdenoise.studies.memory.planted import three_steps

CONFIG = Path("config") / "config.yaml"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+", required=True, help="context lengths T")
    parser.add_argument("--ds", type=int, nargs="+", required=True, help="embedding widths d")
    parser.add_argument("--samples", type=int, required=True, help="training samples n")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0], help="seeds (default 0)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    config = load_yaml(CONFIG)
    block = {**config["memory"]["planted"], **config["execution"]["memory"]["planted"]}
    print(f"N = {block['vocabulary']}, n = {args.samples}, success at recall ≥ {block['success_threshold']}")
    for length in args.lengths:
        for d in args.ds:
            for seed in args.seeds:
                start = time.perf_counter()
                row = three_steps(block, d, length, args.samples, seed)
                print(f"T = {length}, d = {d}, seed {seed}: recall after step 1 {row['recall_step1']:.4f}, attention on "
                      f"t* {row['attention_planted']:.4f}, recall {row['recall']:.4f} ({time.perf_counter() - start:.1f} s)",
                      flush=True)


if __name__ == "__main__":
    main()
