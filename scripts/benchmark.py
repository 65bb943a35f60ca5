#!/usr/bin/env python3
"""Time `snakemake --cores N <target>` from an empty results/ and report medians.

Each repeat runs in a fresh temporary copy of a workflow (Snakefile, workflow/, config/), so no
result, metadata or benchmark file of an earlier run is reused. With several `--workflow` checkouts
(e.g. this branch and a clone of main), the repeats alternate between them, each checkout running
with its own package (PYTHONPATH=<checkout>/src): a side-by-side comparison on one machine. Prints the
wall time of every repeat, the medians, and per-rule and per-job medians from the `benchmark:` files.

    .venv/bin/python scripts/benchmark.py --repeats 3 --target all
    .venv/bin/python scripts/benchmark.py --repeats 3 --target figures/fig3.pdf --workflow /tmp/main --workflow .
    .venv/bin/python scripts/benchmark.py --repeats 1 --floor   # and each training job against its floor
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
import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from floor import MachineRates, compute_floor_seconds, job_counts, job_floor_seconds, probe_machine, training_work  # noqa: E402

from icdenoise.pipeline.cluster import stalled_slurm_warning  # noqa: E402
from icdenoise.pipeline.joblog import job_of  # noqa: E402
from icdenoise.pipeline.named_runs import configured_root  # noqa: E402


def run_once(checkout: Path, cores: int, configfile: str | None, target: str, keep: Path | None = None) -> tuple[float, dict[str, float]]:
    """One fresh run of `target` in a temporary copy of `checkout`: its wall time and each job's benchmark seconds.
    With `keep`, the copy (its results and figures) replaces that folder afterwards."""
    with tempfile.TemporaryDirectory(prefix="icdenoise-bench-") as scratch:
        workdir = Path(scratch)
        shutil.copy(checkout / "Snakefile", workdir)
        for folder in ("workflow", "config", "profiles"):
            if (checkout / folder).is_dir():  # profiles/: since the studies became plug-ins
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
        benchmarks = workdir / configured_root(workdir / "config" / "config.yaml", [configfile] if configfile else []) / "benchmarks"
        jobs = {
            str(path.relative_to(benchmarks).with_suffix("")): float(pd.read_csv(path, sep="\t")["s"].iloc[0])
            for path in benchmarks.rglob("*.tsv")
        }
        if keep is not None:
            shutil.rmtree(keep, ignore_errors=True)
            shutil.copytree(workdir, keep, symlinks=True)
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


def merged_config(checkout: Path, configfiles: list) -> dict:
    """config/config.yaml, with each of `configfiles`' keys merged over it in turn, as Snakemake merges them."""
    def merge(base: dict, override: dict) -> dict:
        return {**base, **{key: merge(base[key], value) if isinstance(value, dict) and isinstance(base.get(key), dict) else value
                           for key, value in override.items()}}

    config = yaml.safe_load((checkout / "config" / "config.yaml").read_text())
    for configfile in configfiles:
        config = merge(config, yaml.safe_load(Path(configfile).read_text()))
    return config


def training_run(job: str) -> tuple[str, int, str] | None:
    """(case, L, model) of a train_ensemble job's benchmark (benchmarks/train_ensemble/case=…,L=…,model=…), else None."""
    rule, wildcards = job_of(job)
    return (wildcards["case"], int(wildcards["L"]), wildcards["model"]) if rule == "train_ensemble" else None


def report_floors(per_job: dict[str, list[float]], config: dict, rates: MachineRates, where: str = "one core of this machine") -> None:
    """Every training job's median time against its floor at `rates` (scripts/floor.py: `probe_machine`
    for one core, `probe_cuda` for a GPU)."""
    print(f"\n### Training jobs against the floor of {where}\n\n"
          f"probe: float32 GEMM {rates.gemm_flops_per_second / 1e9:.1f} GFLOP/s, read bandwidth "
          f"{rates.read_bytes_per_second / 1e9:.1f} GB/s, kernel launch {rates.launch_seconds * 1e6:.1f} µs; a fresh "
          f"interpreter importing torch, pandas and pyarrow: {rates.start_seconds:.2f} s\n\nfloor = start + steps and "
          f"records at the roofline (scripts/floor.py); job = the median of the rule's benchmark: file\n")
    print("| job | steps | records | MFLOP/step | MB/step | MFLOP/record | MB/record | compute floor s | floor s | job s | job/floor | "
          "job/compute floor |\n|---|---|---|---|---|---|---|---|---|---|---|---|")
    dataset, training = config["dataset"], config["training"]
    runs = {job: run for job in per_job if (run := training_run(job))}
    for job in sorted(runs):
        case, length, model = runs[job]
        work = training_work(config["models"][model]["architecture"], config["cases"][case]["n"], length,
                             len(training["seeds"]), training["batch_size"], dataset["n_prompts"])
        seconds = statistics.median(per_job[job])
        if work is None:
            print(f"| {job} | | | | | | | not modelled | | {seconds:.1f} | | |")
            continue
        steps, records = job_counts(training["epochs"][case], dataset["n_train"], training["batch_size"], training["record_every"])
        compute = compute_floor_seconds(work, steps, records, rates)
        floor = job_floor_seconds(work, steps, records, rates)
        print(f"| {job} | {steps} | {records} | {work.step_flops / 1e6:.1f} | {work.step_bytes / 1e6:.2f} | "
              f"{work.record_flops / 1e6:.1f} | {work.record_bytes / 1e6:.2f} | {compute:.3g} | {floor:.3g} | {seconds:.1f} | "
              f"{seconds / floor:.1f} | {seconds / compute:.0f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3, help="fresh runs per checkout (default 3)")
    parser.add_argument("--cores", type=int, default=2, help="snakemake --cores (default 2)")
    parser.add_argument("--configfile", help="config overriding config/config.yaml (default: the paper config)")
    parser.add_argument("--target", default="figures/fig3.pdf", help="target to build (default figures/fig3.pdf)")
    parser.add_argument("--workflow", action="append", type=Path, help="a checkout to time (repeatable; default: this one)")
    parser.add_argument("--keep", type=Path, help="keep each checkout's last run here, in <keep>/<n>/ by --workflow order "
                                                  "(to compare its tables: scripts/compare_results.py)")
    parser.add_argument("--floor", action="store_true",
                        help="probe this machine's core (GEMM, memory bandwidth) and print each training job against its floor")
    args = parser.parse_args()
    checkouts = [path.resolve() for path in args.workflow or [REPO]]
    if warning := stalled_slurm_warning():
        print(f"warning: {warning}", file=sys.stderr)

    walls = {checkout: [] for checkout in checkouts}
    per_job = {checkout: defaultdict(list) for checkout in checkouts}
    for repeat in range(args.repeats):
        for index, checkout in enumerate(checkouts):
            keep = args.keep / str(index) if args.keep and repeat == args.repeats - 1 else None
            wall, jobs = run_once(checkout, args.cores, args.configfile, args.target, keep)
            walls[checkout].append(wall)
            for job, seconds in jobs.items():
                per_job[checkout][job].append(seconds)
            print(f"run {repeat + 1}/{args.repeats} of {checkout}: {wall:.1f} s wall", flush=True)
    for checkout in checkouts:
        report(checkout, walls[checkout], per_job[checkout], args.cores, args.target)
        if args.floor:
            report_floors(per_job[checkout], merged_config(checkout, [args.configfile] if args.configfile else []), probe_machine())
    if len(checkouts) > 1:
        first = statistics.median(walls[checkouts[0]])
        print("\n" + "\n".join(f"median of {checkout} / median of {checkouts[0]}: {statistics.median(walls[checkout]) / first:.3f}"
                               for checkout in checkouts[1:]))


if __name__ == "__main__":
    main()
