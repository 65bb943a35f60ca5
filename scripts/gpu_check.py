#!/usr/bin/env python3
"""The GPU path, measured: the paper config's training sweeps (Figs. 3, 4(a) and 8) on the CPU and
on a CUDA GPU, each job's wall time, and the agreement of what they learned.

    .venv/bin/python scripts/gpu_check.py                    # both runs, then the comparison
    .venv/bin/python scripts/gpu_check.py --cpu-run /tmp/cpu  # reuse a CPU run kept with --keep

Each run builds figures/fig3.parquet, figures/fig4a.parquet and figures/fig8.parquet from an empty
results/ in a fresh copy of this workflow, with `training.device` set to cpu or cuda. GPU training jobs
run one at a time (`--resources gpu=1`), so that each job's `benchmark:` wall time is its own.

Agreement, fixed before any GPU run: the learned α, β, γ and final losses within 2% (relative) of the
CPU's, and Fig. 8's weight matrices within 2% of their largest entry. Float32 reductions run in another
order on a GPU and Adam amplifies the difference over thousands of steps, so bit-equality is not
expected; TF32 is off (icdenoise.maths.runtime), so the difference is rounding, not precision.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
from icdenoise.pipeline.named_runs import configured_root  # noqa: E402
TARGETS = ["figures/fig3.parquet", "figures/fig4a.parquet", "figures/fig8.parquet"]
RELATIVE_TOLERANCE = 0.02
COMPARED = {"figures/fig3.parquet": (["case", "model", "seed"], ["alpha", "beta", "final_train_mse", "final_test_mse"]),
            "figures/fig4a.parquet": (["L", "seed"], ["alpha", "beta", "gamma", "best_test_mse", "final_test_mse"])}


def build(device: str, cores: int, workdir: Path, configfiles: list[Path]) -> tuple[float, Path]:
    """Build the targets in `workdir` on `device`: the wall time, and the folder of the run built (its root)."""
    shutil.copy(REPO / "Snakefile", workdir)
    for folder in ("workflow", "config", "profiles"):
        shutil.copytree(REPO / folder, workdir / folder)
    (workdir / "device.yaml").write_text(f"training: {{device: {device}}}\n")
    root = configured_root(workdir / "config" / "config.yaml", configfiles)
    command = [str(Path(sys.executable).parent / "snakemake"), *(root + target for target in TARGETS), "--cores", str(cores), "--quiet",
               "--resources", "gpu=1", "--configfile", *map(str, configfiles), "device.yaml"]
    started = time.perf_counter()
    result = subprocess.run(command, cwd=workdir, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO / "src")})
    if result.returncode != 0:
        sys.exit(f"the {device} run failed:\n{result.stderr[-4000:]}")
    return time.perf_counter() - started, workdir / root


def training_times(workdir: Path) -> pd.Series:
    return pd.Series({path.stem: float(pd.read_csv(path, sep="\t")["s"].iloc[0])
                      for path in sorted((workdir / "benchmarks" / "train_ensemble").glob("*.tsv"))}, name="seconds")


def agreement(cpu: Path, gpu: Path) -> list[str]:
    """One line per compared column: its largest relative difference, and whether it is within tolerance."""
    lines = []
    for table, (keys, columns) in COMPARED.items():
        merged = pd.read_parquet(cpu / table).merge(pd.read_parquet(gpu / table), on=keys, suffixes=("_cpu", "_gpu"))
        for column in columns:
            a, b = merged[f"{column}_cpu"].to_numpy(float), merged[f"{column}_gpu"].to_numpy(float)
            relative = np.nanmax(np.abs(a - b) / np.maximum(np.abs(a), np.finfo(float).tiny))
            lines.append(f"{table} {column}: max relative difference {relative:.2e} "
                         f"({'ok' if relative <= RELATIVE_TOLERANCE else 'OUTSIDE'} at {RELATIVE_TOLERANCE:.0%})")
    cpu_weights, gpu_weights = (pd.read_parquet(root / "figures/fig8.parquet") for root in (cpu, gpu))
    merged = cpu_weights.merge(gpu_weights, on=["panel", "row", "col"], suffixes=("_cpu", "_gpu"))
    scale = merged.groupby("panel")["value_cpu"].transform(lambda values: values.abs().max())
    relative = float(((merged["value_cpu"] - merged["value_gpu"]).abs() / scale).max())
    lines.append(f"figures/fig8.parquet value: max difference {relative:.2e} of the panel's largest entry "
                 f"({'ok' if relative <= RELATIVE_TOLERANCE else 'OUTSIDE'} at {RELATIVE_TOLERANCE:.0%})")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cores", type=int, default=os.cpu_count(), help="snakemake --cores (default: all)")
    parser.add_argument("--cpu-run", type=Path, help="a finished CPU run to compare with (default: run one)")
    parser.add_argument("--configfile", type=Path, nargs="*", default=[],
                        help="configs merged over config/config.yaml before the device (default: none, the paper config)")
    parser.add_argument("--keep", type=Path, help="keep the runs under this folder (cpu/, cuda/)")
    args = parser.parse_args()
    import torch

    if not torch.cuda.is_available():
        sys.exit("torch sees no CUDA GPU: this check needs one (see docs/cluster.md)")
    scratch = args.keep or Path(tempfile.mkdtemp(prefix="icdenoise-gpu-"))
    runs = {}
    for device in ("cpu", "cuda"):
        if device == "cpu" and args.cpu_run:
            runs[device] = args.cpu_run
            continue
        (scratch / device).mkdir(parents=True)
        wall, runs[device] = build(device, args.cores, scratch / device, [path.resolve() for path in args.configfile])
        print(f"{device}: {wall:.1f} s wall for {', '.join(TARGETS)}", flush=True)
    times = pd.concat({device: training_times(root) for device, root in runs.items()}, axis=1)
    times["cpu/cuda"] = times["cpu"] / times["cuda"]
    print(f"\ntraining jobs on {torch.cuda.get_device_name()} (seconds, each job alone on the GPU):\n")
    print(times.round(2).to_string())
    print(f"\ntotal: cpu {times['cpu'].sum():.1f} s, cuda {times['cuda'].sum():.1f} s; "
          f"slowest cuda job {times['cuda'].max():.1f} s ({times['cuda'].idxmax()})\n")
    print("\n".join(agreement(runs["cpu"], runs["cuda"])))
    if not args.keep:
        shutil.rmtree(scratch)


if __name__ == "__main__":
    main()
