#!/usr/bin/env python3
"""Collect a run's `benchmark:` files into the calibration table of the job-size models, and print each
job's measured peak memory and wall time against its raw estimate.

    ICDENOISE_WARMSTART=0 snakemake --cores 2 all  # the paper config, from an empty results/, each job in its own process
    python scripts/calibrate_resources.py . --write tests/data/paper_benchmarks.tsv

After a change that reruns some jobs, `--update tests/data/paper_benchmarks.tsv` replaces the rows of the jobs
that ran in their own process (ICDENOISE_WARMSTART=0) and keeps the others.

Every job has a benchmark, benchmarks/<rule>.tsv or benchmarks/<rule>/<wildcard>=<value>,….tsv, and a log
at the same path under logs/ (workflow/rules/helpers.smk, `job_files`). A benchmark file measures the
job's process; a job that ran in a warm-start copy (its log's first line says so) has another process
do its work, so its CPU and memory columns are not its own: such a run is refused.

A ratio measured/estimate above 1 means the estimate does not cover the job: raise the coefficient of its
size model (icdenoise.pipeline.resources, or its study's sizes.py; tests/unit/pipeline/test_resources.py
checks every row of the table).

It also prints the sentence of docs/cluster.md that gives the range of the requests (`request_sentence`):
after a change of the table or of a size model, paste it there (tests/unit/scripts/test_calibrate_resources.py
checks that the doc has the table's sentence).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import pandas as pd
from snakemake.utils import update_config

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from icdenoise.pipeline.config import load_schema, load_yaml, registered_studies  # noqa: E402
from icdenoise.pipeline.joblog import RUNS_IN, job_of  # noqa: E402
from icdenoise.pipeline.named_runs import configured_root  # noqa: E402
from icdenoise.pipeline.registry import shared_and_study  # noqa: E402
from icdenoise.pipeline.resources import SHARED_SIZES, job_estimate  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
OWN_PROCESS = f"{RUNS_IN}in its own process"


def measurements(run: Path, own_only: bool = False) -> pd.DataFrame:
    """One row per job of the run: rule, wildcards, wall seconds and peak memory (MB) of its benchmark. A job
    that ran in a warm-start copy is an error, or with `own_only` is left out."""
    rows, copied = [], []
    for benchmark in sorted((run / "benchmarks").rglob("*.tsv")):
        relative = benchmark.relative_to(run / "benchmarks")
        rule, wildcards = job_of(relative)
        log = (run / "logs" / relative).with_suffix(".log")
        if OWN_PROCESS not in log.read_text():
            copied.append(str(log))
            if own_only:
                continue
        measured = pd.read_csv(benchmark, sep="\t").iloc[-1]
        rows.append({"rule": rule, "wildcards": ",".join(f"{key}={value}" for key, value in wildcards.items()),
                     "seconds": float(measured["s"]), "max_rss_mb": float(measured["max_rss"])})
    if copied and not own_only:
        sys.exit(f"{len(copied)} jobs did not run in their own processes (first: {copied[0]}): their benchmarks measure "
                 "the waiting process only; run again with ICDENOISE_WARMSTART=0")
    return pd.DataFrame(rows, columns=["rule", "wildcards", "seconds", "max_rss_mb"])


def with_estimates(table: pd.DataFrame, config: dict) -> pd.DataFrame:
    """The table with each job's raw estimate and request from its rule's size model."""
    sizes = shared_and_study(SHARED_SIZES, registered_studies(config, load_schema(REPO / "workflow" / "schemas")), "sizes")
    estimates = [job_estimate(row.rule, job_of(f"{row.rule}/{row.wildcards}" if row.wildcards else row.rule)[1], config, sizes)
                 for row in table.itertuples()]
    return table.assign(
        estimated_seconds=[estimate.seconds for estimate in estimates],
        estimated_mb=[estimate.megabytes for estimate in estimates],
        time_ratio=lambda frame: frame["seconds"] / frame["estimated_seconds"],
        memory_ratio=lambda frame: frame["max_rss_mb"] / frame["estimated_mb"],
        runtime_minutes=[estimate.runtime_minutes for estimate in estimates],
        mem_mb=[estimate.mem_mb for estimate in estimates],
    )


def request_sentence(report: pd.DataFrame) -> str:
    """docs/cluster.md's sentence on the requests of the table's jobs: the range of `mem_mb` and of `runtime`, the
    rule that asks for the most of each, and the least `mem_mb` over a job's measured peak (rounded down)."""
    memory, minutes = report.loc[report["mem_mb"].idxmax()], report.loc[report["runtime_minutes"].idxmax()]
    headroom = math.floor(10 * (report["mem_mb"] / report["max_rss_mb"]).min()) / 10
    return (f"Over the jobs of the calibration table the paper config asks for {report['mem_mb'].min()}–{memory['mem_mb']} MB "
            f"(the most for `{memory['rule']}`) and {report['runtime_minutes'].min()}–{minutes['runtime_minutes']} minutes "
            f"(the most for `{minutes['rule']}`), and every job's `mem_mb` is at least {headroom:.1f} × its measured peak.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", type=Path, help="a workflow directory after a run (its run's benchmarks/ and logs/ are read)")
    parser.add_argument("--configfile", type=Path, nargs="*", default=[],
                        help="files the run merged onto RUN/config/config.yaml (as snakemake's --configfile)")
    parser.add_argument("--write", type=Path, default=None, help="write the measurements to this TSV")
    parser.add_argument("--update", type=Path, default=None,
                        help="merge into this TSV: the jobs that ran in their own process replace their rows, the others are kept")
    args = parser.parse_args()
    config = load_yaml(args.run / "config" / "config.yaml")
    for path in args.configfile:
        update_config(config, load_yaml(path))
    root = args.run / configured_root(args.run / "config" / "config.yaml", args.configfile)
    table = measurements(root, own_only=args.update is not None)
    if args.update:
        kept = pd.read_csv(args.update, sep="\t", keep_default_na=False)
        fresh = {(row.rule, row.wildcards) for row in table.itertuples()}
        kept = kept[[(row.rule, row.wildcards) not in fresh for row in kept.itertuples()]]
        table = pd.concat([kept, table], ignore_index=True).sort_values(["rule", "wildcards"]).reset_index(drop=True)
        table.to_csv(args.update, sep="\t", index=False)
        print(f"updated {args.update}: {len(fresh)} jobs measured in their own process, {len(table)} rows")
    if args.write:
        table.to_csv(args.write, sep="\t", index=False)
        print(f"wrote {len(table)} jobs to {args.write}")
    report = with_estimates(table, config)
    pd.set_option("display.width", 200)
    print(report.groupby("rule").agg(jobs=("seconds", "size"), max_seconds=("seconds", "max"), max_time_ratio=("time_ratio", "max"),
                                     max_rss_mb=("max_rss_mb", "max"), max_memory_ratio=("memory_ratio", "max"),
                                     runtime_minutes=("runtime_minutes", "max"), mem_mb=("mem_mb", "max")).round(3).to_string())
    print(f"\nmeasured/estimate: time {report['time_ratio'].min():.2f}-{report['time_ratio'].max():.2f}, "
          f"memory {report['memory_ratio'].min():.2f}-{report['memory_ratio'].max():.2f} over {len(report)} jobs")
    print(f"\ndocs/cluster.md's sentence, when this is the paper config's table:\n{request_sentence(report)}")


if __name__ == "__main__":
    main()
