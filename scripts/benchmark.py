#!/usr/bin/env python3
"""Time `snakemake --cores N <target>` from an empty results/ and report medians.

Each repeat runs in a fresh temporary copy of the workflow (Snakefile, workflow/, config/), so
no result, metadata or benchmark file of an earlier run is reused. Prints the wall time of every
repeat, their median, and per-job and per-rule medians read from the rules' `benchmark:` files.
For figures/fig3.pdf it also prints the speed-up over the authors' code (27 minutes for the same
36 training runs on a 2-core machine, as quoted in the issue tracker).

    .venv/bin/python scripts/benchmark.py --repeats 3 --target all
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
AUTHORS_SECONDS = 27 * 60


def run_once(cores: int, configfile: str | None, target: str) -> tuple[float, dict[str, float]]:
    with tempfile.TemporaryDirectory(prefix="icdenoise-bench-") as scratch:
        workdir = Path(scratch)
        shutil.copy(REPO / "Snakefile", workdir)
        for folder in ("workflow", "config"):
            shutil.copytree(REPO / folder, workdir / folder)
        command = [str(Path(sys.executable).parent / "snakemake"), target, "--cores", str(cores), "--quiet"]
        if configfile:
            command += ["--configfile", str(Path(configfile).resolve())]
        started = time.perf_counter()
        result = subprocess.run(command, cwd=workdir, capture_output=True, text=True)
        wall = time.perf_counter() - started
        if result.returncode != 0:
            sys.exit(f"snakemake failed:\n{result.stderr[-4000:]}")
        jobs = {
            str(path.relative_to(workdir / "benchmarks").with_suffix("")): float(pd.read_csv(path, sep="\t")["s"].iloc[0])
            for path in (workdir / "benchmarks").rglob("*.tsv")
        }
    return wall, jobs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3, help="number of fresh runs (default 3)")
    parser.add_argument("--cores", type=int, default=2, help="snakemake --cores (default 2)")
    parser.add_argument("--configfile", help="config overriding config/config.yaml (default: the paper config)")
    parser.add_argument("--target", default="figures/fig3.pdf", help="target to build (default figures/fig3.pdf)")
    args = parser.parse_args()

    walls, per_job = [], defaultdict(list)
    for repeat in range(args.repeats):
        wall, jobs = run_once(args.cores, args.configfile, args.target)
        walls.append(wall)
        for job, seconds in jobs.items():
            per_job[job].append(seconds)
        print(f"run {repeat + 1}/{args.repeats}: {wall:.1f} s wall", flush=True)

    median = statistics.median(walls)
    print(f"\nmedian wall time of `snakemake --cores {args.cores} {args.target}`: {median:.1f} s "
          f"(runs: {', '.join(f'{w:.1f}' for w in walls)})")
    if args.target == "figures/fig3.pdf":
        print(f"speed-up over the authors' code ({AUTHORS_SECONDS / 60:.0f} min): {AUTHORS_SECONDS / median:.0f}x")
    per_rule = defaultdict(list)
    for job, seconds in per_job.items():
        per_rule[job.split("/")[0]].append(statistics.median(seconds))
    print("\n| rule | jobs | median s per job | max s | total s |\n|---|---|---|---|---|")
    for rule in sorted(per_rule, key=lambda r: -sum(per_rule[r])):
        times = per_rule[rule]
        print(f"| {rule} | {len(times)} | {statistics.median(times):.1f} | {max(times):.1f} | {sum(times):.1f} |")
    print("\n| job | median s |\n|---|---|")
    for job in sorted(per_job):
        print(f"| {job} | {statistics.median(per_job[job]):.2f} |")


if __name__ == "__main__":
    main()
