#!/usr/bin/env python3
"""Time `snakemake --cores N <target>` from an empty results/ and report medians.

Each repeat runs in a fresh temporary copy of a workflow (Snakefile, workflow/, config/), so no
result, metadata or benchmark file of an earlier run is reused. With several `--workflow` checkouts
(e.g. this branch and a clone of main), the repeats alternate between them, each checkout running
with its own package (PYTHONPATH=<checkout>/src): a side-by-side comparison on one machine. Prints the
wall time of every repeat, the medians, and per-rule and per-job medians from the `benchmark:` files.

    .venv/bin/python scripts/benchmark.py --repeats 3 --target all
    .venv/bin/python scripts/benchmark.py --repeats 3 --target figures/fig3.pdf --workflow /tmp/main --workflow .
"""

from __future__ import annotations

import argparse
import os
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


def run_once(checkout: Path, cores: int, configfile: str | None, target: str) -> tuple[float, dict[str, float]]:
    with tempfile.TemporaryDirectory(prefix="icdenoise-bench-") as scratch:
        workdir = Path(scratch)
        shutil.copy(checkout / "Snakefile", workdir)
        for folder in ("workflow", "config"):
            shutil.copytree(checkout / folder, workdir / folder)
        command = [str(Path(sys.executable).parent / "snakemake"), target, "--cores", str(cores), "--quiet"]
        if configfile:
            command += ["--configfile", str(Path(configfile).resolve())]
        environment = {**os.environ, "PYTHONPATH": str(checkout / "src")}
        started = time.perf_counter()
        result = subprocess.run(command, cwd=workdir, capture_output=True, text=True, env=environment)
        wall = time.perf_counter() - started
        if result.returncode != 0:
            sys.exit(f"snakemake failed in a copy of {checkout}:\n{result.stderr[-4000:]}")
        jobs = {
            str(path.relative_to(workdir / "benchmarks").with_suffix("")): float(pd.read_csv(path, sep="\t")["s"].iloc[0])
            for path in (workdir / "benchmarks").rglob("*.tsv")
        }
    return wall, jobs


def report(checkout: Path, walls: list[float], per_job: dict[str, list[float]], cores: int, target: str) -> None:
    print(f"\n## {checkout}\n\nmedian wall time of `snakemake --cores {cores} {target}`: {statistics.median(walls):.1f} s "
          f"(runs: {', '.join(f'{w:.1f}' for w in walls)})")
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3, help="fresh runs per checkout (default 3)")
    parser.add_argument("--cores", type=int, default=2, help="snakemake --cores (default 2)")
    parser.add_argument("--configfile", help="config overriding config/config.yaml (default: the paper config)")
    parser.add_argument("--target", default="figures/fig3.pdf", help="target to build (default figures/fig3.pdf)")
    parser.add_argument("--workflow", action="append", type=Path, help="a checkout to time (repeatable; default: this one)")
    args = parser.parse_args()
    checkouts = [path.resolve() for path in args.workflow or [REPO]]

    walls = {checkout: [] for checkout in checkouts}
    per_job = {checkout: defaultdict(list) for checkout in checkouts}
    for repeat in range(args.repeats):
        for checkout in checkouts:
            wall, jobs = run_once(checkout, args.cores, args.configfile, args.target)
            walls[checkout].append(wall)
            for job, seconds in jobs.items():
                per_job[checkout][job].append(seconds)
            print(f"run {repeat + 1}/{args.repeats} of {checkout}: {wall:.1f} s wall", flush=True)
    for checkout in checkouts:
        report(checkout, walls[checkout], per_job[checkout], args.cores, args.target)
    if len(checkouts) > 1:
        first = statistics.median(walls[checkouts[0]])
        print("\n" + "\n".join(f"median of {checkout} / median of {checkouts[0]}: {statistics.median(walls[checkout]) / first:.3f}"
                               for checkout in checkouts[1:]))


if __name__ == "__main__":
    main()
