#!/usr/bin/env python3
"""Collect a run's `benchmark:` files into the calibration table of icdenoise.resources, and print
each job's measured peak memory and wall time against its raw estimate.

    ICDENOISE_WARMSTART=0 snakemake --cores 2 all  # the paper config, from an empty results/, each job in its own process
    python scripts/calibrate_resources.py . --write tests/data/paper_benchmarks.tsv

A ratio measured/estimate above 1 means the estimate does not cover the job: raise the coefficient
in src/icdenoise/resources.py (tests/unit/test_resources.py checks every row of the table).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import pandas as pd
from snakemake.utils import update_config

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from icdenoise.codedeps import imports_torch, rule_scripts  # noqa: E402
from icdenoise.config import load_yaml  # noqa: E402
from icdenoise.resources import job_estimate  # noqa: E402

WILDCARDS = ("case", "L", "model", "tokens")
JOB_NAME = re.compile(r"^(?P<case>.+?)_L(?P<L>\d+)(?:_(?P<model>.+))?$")


def wildcards_of(benchmark: Path, rule: str) -> dict[str, str]:
    """The wildcards in a benchmark file's name: {case}_L{L}[_{model}], N{tokens} or {case}."""
    if benchmark.parent.name != rule:
        return {}
    if re.fullmatch(r"N\d+", benchmark.stem):  # the all-token study's Fig. 4(a) jobs, one per N
        return {"tokens": benchmark.stem[1:]}
    match = JOB_NAME.match(benchmark.stem)
    if match is None:
        return {"case": benchmark.stem}
    return {key: value for key, value in match.groupdict().items() if value is not None}


def measurements(run: Path) -> pd.DataFrame:
    rows = []
    for benchmark in sorted((run / "benchmarks").rglob("*.tsv")):
        rule = benchmark.parent.name if benchmark.parent.name != "benchmarks" else benchmark.stem
        measured = pd.read_csv(benchmark, sep="\t").iloc[-1]
        rows.append({"rule": rule, **wildcards_of(benchmark, rule), "seconds": float(measured["s"]),
                     "max_rss_mb": float(measured["max_rss"])})
    return pd.DataFrame(rows, columns=["rule", "case", "L", "model", "tokens", "seconds", "max_rss_mb"])


def with_estimates(table: pd.DataFrame, config: dict, workflow: Path) -> pd.DataFrame:
    scripts = rule_scripts(workflow)
    estimates = [
        job_estimate(row.rule, {key: getattr(row, key) for key in WILDCARDS if isinstance(getattr(row, key), str)},
                     config, imports_torch(scripts[row.rule]))
        for row in table.itertuples()
    ]
    return table.assign(
        estimated_seconds=[estimate.seconds for estimate in estimates],
        estimated_mb=[estimate.megabytes for estimate in estimates],
        time_ratio=lambda frame: frame["seconds"] / frame["estimated_seconds"],
        memory_ratio=lambda frame: frame["max_rss_mb"] / frame["estimated_mb"],
        runtime_minutes=[estimate.runtime_minutes for estimate in estimates],
        mem_mb=[estimate.mem_mb for estimate in estimates],
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", type=Path, help="a workflow directory after a run (has benchmarks/)")
    parser.add_argument("--configfile", type=Path, nargs="*", default=[],
                        help="files the run merged onto RUN/config/config.yaml (as snakemake's --configfile)")
    parser.add_argument("--write", type=Path, default=None, help="write the measurements to this TSV")
    args = parser.parse_args()
    workflow = Path(__file__).resolve().parents[1]
    config = load_yaml(args.run / "config" / "config.yaml")
    for path in args.configfile:
        update_config(config, load_yaml(path))
    table = measurements(args.run)
    if args.write:
        table.to_csv(args.write, sep="\t", index=False)
        print(f"wrote {len(table)} jobs to {args.write}")
    report = with_estimates(table, config, workflow)
    pd.set_option("display.width", 200)
    print(report.groupby("rule").agg(jobs=("seconds", "size"), max_seconds=("seconds", "max"), max_time_ratio=("time_ratio", "max"),
                                     max_rss_mb=("max_rss_mb", "max"), max_memory_ratio=("memory_ratio", "max"),
                                     runtime_minutes=("runtime_minutes", "max"), mem_mb=("mem_mb", "max")).round(3).to_string())
    print(f"\nmeasured/estimate: time {report['time_ratio'].min():.2f}-{report['time_ratio'].max():.2f}, "
          f"memory {report['memory_ratio'].min():.2f}-{report['memory_ratio'].max():.2f} over {len(report)} jobs")


if __name__ == "__main__":
    main()
