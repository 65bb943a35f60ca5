#!/usr/bin/env python3
"""Time the authors' code and this pipeline on the same training job, alternating, on one machine.

The job: the gmm case (K = 8, σ0² = 0.02, σ_z² = 0.1, n = 16), softmax attention, L = 500, 6 seeds,
200 epochs, batch 80, Adam 0.01 decayed ×0.1 at 80% and 90%, on 800 + 200 prompts.

- Authors: `multirun_ensemble` of src/nn_train_ensemble.py (github.com/mattsmart/in-context-denoising;
  check it out anywhere and pass --authors), run in a fresh copy of the checkout with the interpreter
  running this script. It draws its dataset, trains the six seeds one after the other with torch's
  default threads, and saves its loss curves, weights and plots.
- This pipeline: `snakemake results/train/gmm/L500/softmax/losses.parquet --cores C
  --set-threads train_ensemble=C` in a fresh copy of the workflow: the dataset job, then the training
  job with C threads. C (`--cores`) defaults to the threads torch gives the authors' run, so that
  both sides have the same cores; `--cores 1` times our job on one.

Each repeat times the authors' run then ours. Wall and CPU seconds (user + system of the child
processes), and the final test loss and the mean diagonals of W_KQ and W_PV of every seed, are printed
per run, then the medians and their ratios.

    .venv/bin/python -m icdenoise.studies.onelayer.tools.authors_pair --authors /path/to/in-context-denoising --repeats 3
"""

from __future__ import annotations

import argparse
import glob
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path.cwd()  # run from the repository's root, as every study tool is
TARGET = "results/train/gmm/L500/softmax/losses.parquet"
AUTHORS_CALL = ("from nn_train_ensemble import multirun_ensemble; "
                "multirun_ensemble(nn_model='TransformerModelV2noresOmitLast', datagen_case=1, n_ensemble=6, "
                "epochs=200, fixed_context_len=500)")


def timed(command: list[str], cwd: Path, environment: dict | None = None) -> tuple[float, float]:
    """(wall, CPU) seconds of a command and its children."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=environment)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed in {cwd}:\n{result.stdout[-2000:]}\n{result.stderr[-4000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def authors_run(checkout: Path) -> dict:
    import torch

    with tempfile.TemporaryDirectory(prefix="authors-") as scratch:
        copy = Path(scratch) / "repo"
        shutil.copytree(checkout, copy, ignore=shutil.ignore_patterns(".git", "runs", "output", "models", "input"))
        environment = {**os.environ, "MPLBACKEND": "Agg"}
        wall, cpu = timed([sys.executable, "-c", AUTHORS_CALL], copy / "src", environment)
        losses, kq, pv = [], [], []
        for curve in sorted(glob.glob(str(copy / "runs" / "**" / "curve_losstest_interval.npz"), recursive=True)):
            losses.append(float(np.load(curve)["y"][-1]))
            run = Path(curve).parents[1]
            weights = torch.load(run / "model_checkpoints" / "model_final.pth", map_location="cpu")
            kq.append(float(torch.diagonal(weights["W_KQ"]).mean()))
            pv.append(float(torch.diagonal(weights["W_PV"]).mean()))
    return {"wall": wall, "cpu": cpu, "test_mse": losses, "W_KQ_diag": kq, "W_PV_diag": pv}


def our_run(checkout: Path, cores: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="icdenoise-pair-") as scratch:
        workdir = Path(scratch)
        shutil.copy(checkout / "Snakefile", workdir)
        for folder in ("workflow", "config", "profiles"):
            shutil.copytree(checkout / folder, workdir / folder)
        environment = {**os.environ, "PYTHONPATH": str(checkout / "src")}
        command = [str(Path(sys.executable).parent / "snakemake"), TARGET, "--cores", str(cores),
                   "--set-threads", f"train_ensemble={cores}", "--quiet"]
        wall, cpu = timed(command, workdir, environment)
        losses = pd.read_parquet(workdir / TARGET)
        final = losses[(losses["step"] == losses["step"].max()) & (losses["split"] == "test")].sort_values("seed")
        weights = pd.read_parquet(workdir / TARGET.replace("losses", "weights"))
        diagonal = weights[(weights["stage"] == "final") & (weights["row"] == weights["col"])]
        means = diagonal.groupby(["matrix", "seed"])["value"].mean()
        benchmark = float(pd.read_csv(workdir / "benchmarks" / "train_ensemble" / "case=gmm,L=500,model=softmax.tsv", sep="\t")["s"].iloc[0])
    return {"wall": wall, "cpu": cpu, "training_job": benchmark, "test_mse": final["mse"].tolist(),
            "W_KQ_diag": means["W_KQ"].tolist(), "W_PV_diag": means["W_PV"].tolist()}


def describe(run: dict) -> str:
    def span(values):
        return f"{min(values):.4f}–{max(values):.4f}"

    job = f", training job {run['training_job']:.1f} s" if "training_job" in run else ""
    return (f"{run['wall']:.1f} s wall, {run['cpu']:.1f} s CPU{job}; final test MSE/n {span(run['test_mse'])}, "
            f"mean diag W_KQ {span(run['W_KQ_diag'])}, W_PV {span(run['W_PV_diag'])}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--authors", type=Path, required=True, help="a checkout of mattsmart/in-context-denoising")
    parser.add_argument("--workflow", type=Path, default=REPO, help="the checkout of this pipeline to time (default: this one)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cores", type=int, default=None,
                        help="cores and training threads of our side (default: torch's default thread count, the authors' side's)")
    args = parser.parse_args()
    if not (args.authors / "src" / "nn_train_ensemble.py").is_file():
        sys.exit(f"{args.authors} has no src/nn_train_ensemble.py: pass a checkout of mattsmart/in-context-denoising")
    import torch

    cores = args.cores or torch.get_num_threads()
    from icdenoise.pipeline.cluster import stalled_slurm_warning

    if warning := stalled_slurm_warning():
        print(f"warning: {warning}", file=sys.stderr)
    print(f"the authors' run uses torch's {torch.get_num_threads()} threads; ours --cores {cores}", flush=True)

    runs = {"authors": [], "ours": []}
    for repeat in range(args.repeats):
        for name, run in (("authors", lambda: authors_run(args.authors)), ("ours", lambda: our_run(args.workflow.resolve(), cores))):
            runs[name].append(run())
            print(f"run {repeat + 1}/{args.repeats}, {name}: {describe(runs[name][-1])}", flush=True)
    medians = {name: {key: statistics.median(r[key] for r in results) for key in ("wall", "cpu")} for name, results in runs.items()}
    for name, median in medians.items():
        print(f"median {name}: {median['wall']:.1f} s wall, {median['cpu']:.1f} s CPU")
    print(f"authors / ours: {medians['authors']['wall'] / medians['ours']['wall']:.1f}× wall, "
          f"{medians['authors']['cpu'] / medians['ours']['cpu']:.1f}× CPU")


if __name__ == "__main__":
    main()
