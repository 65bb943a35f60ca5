#!/usr/bin/env python3
"""The GPU path, measured: the paper config's training sweeps (Figs. 3, 4(a) and 8) on the CPU and
on a CUDA GPU, each job's wall time, and the agreement of what they learned.

    .venv/bin/python scripts/gpu_check.py                    # both runs, then the comparison
    .venv/bin/python scripts/gpu_check.py --cpu-run /tmp/cpu  # reuse a CPU run kept with --keep
    .venv/bin/python scripts/gpu_check.py --studies           # the studies' GPU training and their verdicts
    .venv/bin/python scripts/gpu_check.py --device cpu --configfile config/smoke.yaml   # its plumbing, no GPU
    .venv/bin/python scripts/gpu_check.py --studies --cpu-only --keep runs/gpucpu     # a CPU run to carry to a GPU

Each run builds figures/fig3.parquet, figures/fig4a.parquet and figures/fig8.parquet from an empty
results/ in a fresh copy of this workflow, with `execution.training.device` set to cpu or cuda, in three timed
stages: what the training jobs need, the training jobs (the sweeps' wall time), and the rest. GPU
training jobs run one at a time (`--resources gpu=1`), so that each job's `benchmark:` wall time is its
own. A third run then trains the same sweeps again with `--shared` jobs sharing the one GPU
(`--resources gpu=K`): the sweeps' wall time when they overlap, as `snakemake --resources gpu=K` runs them.

Agreement, fixed before any GPU run: the learned α, β, γ and final losses within 2% (relative) of the
CPU's, and Fig. 8's weight matrices within 2% of their largest entry. Float32 reductions run in another
order on a GPU and Adam amplifies the difference over thousands of steps, so bit-equality is not
expected; TF32 is off (icdenoise.maths.runtime), so the difference is rounding, not precision.
Every device key (execution.training.device and each study's) is set, so `--studies` trains those jobs on the
device too; its tolerance is written at STUDY_TARGETS. `--studies` also compares verdicts: the CPU run
builds the ledgers of STUDY_LEDGERS, and the device run is a copy of it in which every job of a device rule
(and what reads it) runs again on the device; each claim's verdict must be the same on both. After the
comparison, each training job of the figures is printed against its floor on the GPU (scripts/floor.py,
`probe_cuda`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "scripts"))
from benchmark import merged_config, report_floors  # noqa: E402
from floor import probe_cuda  # noqa: E402

from icdenoise.pipeline.config import device_keys, load_yaml  # noqa: E402
from icdenoise.pipeline.named_runs import configured_root  # noqa: E402
from icdenoise.pipeline.registry import load_studies  # noqa: E402

TARGETS = ["figures/fig3.parquet", "figures/fig4a.parquet", "figures/fig8.parquet"]
RELATIVE_TOLERANCE = 0.02
COMPARED = {"figures/fig3.parquet": (["case", "model", "seed"], ["alpha", "beta", "final_train_mse", "final_test_mse"]),
            "figures/fig4a.parquet": (["L", "seed"], ["alpha", "beta", "gamma", "best_test_mse", "final_test_mse"])}


# --studies: one training job of each study that can train on a GPU (the paper config's paths), its tables
# compared column by column. Fixed 2026-11-26 before any study ran on a GPU: at the last recorded step
# of a curve (the rows of the largest `step` or `epoch`, each device's own) and in every row of a table
# without one, each float column within 2% of the CPU's, relative to that column's largest CPU magnitude
# (as Fig. 8's).
STUDY_TARGETS = ["results/train/alltoken_mixture/L50/alltoken_learned/losses.parquet",
                 "results/train/alltoken_mixture/L50/alltoken_learned/weights.parquet",
                 "results/mssa/regression/sparse/mssa/seed0/curve.parquet",
                 "results/mssa/regression/sparse/mssa/seed0/errors.parquet",
                 "results/memory/induction/layers2_adam_seed0.parquet"]
STEP_COLUMNS = ("step", "epoch")
# --studies: the ledgers fed by the device jobs (the onelayer ensembles' and the studies'), built on both devices;
# every verdict must agree.
STUDY_LEDGERS = ["figures/claims.parquet", "figures/alltoken/claims.parquet", "figures/mssa/claims.parquet",
                 "figures/memory/claims.parquet"]


def device_config(device: str) -> str:
    """A config file setting every device key (execution.training.device and each study's, `Study.devices`) to `device`."""
    config = {}
    for key in device_keys(load_studies(load_yaml(REPO / "config" / "config.yaml")["studies"])).values():
        *parents, last = key.split(".")
        node = config
        for parent in parents:
            node = node.setdefault(parent, {})
        node[last] = device
    return yaml.safe_dump(config)


def package_env() -> dict[str, str]:
    """The environment of a Snakemake call: this checkout's package first on PYTHONPATH."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO / "src"), os.environ.get("PYTHONPATH")]))}


def snakemake_command(workdir: Path, configfiles: list[Path], targets: list[str], *options: str) -> list[str]:
    """`snakemake` for `targets` of the run configured in `workdir` with `configfiles` and the device's config, with
    `options` (--configfile last: it takes several values)."""
    root = configured_root(workdir / "config" / "config.yaml", configfiles)
    return [sys.executable, "-m", "snakemake", *(root + target for target in targets), *options, "--configfile",
            *map(str, configfiles), "device.yaml"]


def run_stages(device: str, cores: int, workdir: Path, configfiles: list[Path], targets: list[str], gpus: int,
               stages: dict[str, list[str]]) -> tuple[dict[str, float], Path]:
    """Build `targets` in `workdir` on `device`, `gpus` jobs at a time on the GPU, one Snakemake call per stage
    (its extra arguments): each stage's wall time, and the folder of the run built (its root)."""
    (workdir / "device.yaml").write_text(device_config(device))
    root = configured_root(workdir / "config" / "config.yaml", configfiles)
    command = snakemake_command(workdir, configfiles, targets, "--cores", str(cores), "--quiet", "--resources", f"gpu={gpus}")
    walls = {}
    for stage, selection in stages.items():
        started = time.perf_counter()
        result = subprocess.run(command + selection, cwd=workdir, capture_output=True, text=True, env=package_env())
        if result.returncode != 0:
            sys.exit(f"the {device} run failed in its {stage} stage:\n{result.stderr[-4000:]}")
        walls[stage] = time.perf_counter() - started
    return walls, workdir / root


def build(device: str, cores: int, workdir: Path, configfiles: list[Path], targets: list[str], rules: list[str],
          gpus: int = 1, trained_only: bool = False) -> tuple[dict[str, float], Path]:
    """Build `targets` in a fresh copy of the workflow in `workdir` (`run_stages`) in three stages: what the
    training jobs of `rules` need (`--omit-from`), those training jobs (`--until`), and the rest (left out
    when `trained_only`)."""
    shutil.copy(REPO / "Snakefile", workdir)
    for folder in ("workflow", "config", "profiles"):
        shutil.copytree(REPO / folder, workdir / folder)
    stages = {"prepare": ["--omit-from", *rules], "train": ["--until", *rules], "rest": []}
    if trained_only:
        del stages["rest"]
    return run_stages(device, cores, workdir, configfiles, targets, gpus, stages)


DATASETS = "results/datasets"  # the prompts: most of a kept run's bytes (355 MB of 365 for --studies), cheap to draw again


def dataset_digests(run: Path) -> dict[str, str]:
    """Each dataset table of a finished run (its folder, the root of its results/): a digest of its columns (Arrow
    IPC without the schema's metadata), not of its file, whose metadata names when and where it was written."""
    digests = {}
    for path in sorted((run / DATASETS).rglob("*.parquet")):
        sink = pa.BufferOutputStream()
        table = pq.read_table(path).replace_schema_metadata(None)
        with pa.ipc.new_stream(sink, table.schema) as stream:
            stream.write_table(table)
        digests[str(path.relative_to(run))] = hashlib.sha256(sink.getvalue().to_pybytes()).hexdigest()
    return digests


def redraw_datasets(run: Path, cores: int, configfiles: list[Path], targets: list[str]) -> str:
    """A kept run carried without its datasets (`--cpu-only` lists their digests in datasets.json): draw them again
    here (`--forcerun sample_prompts --until sample_prompts`: the jobs downstream of them are up to date without
    them), and say how many have the values the kept run trained on."""
    root = configured_root(run / "config" / "config.yaml", configfiles)
    command = snakemake_command(run, configfiles, targets, "--cores", str(cores), "--forcerun", "sample_prompts", "--until",
                                "sample_prompts", "--rerun-triggers", "mtime", "--quiet")
    result = subprocess.run(command, cwd=run, capture_output=True, text=True, env=package_env())
    if result.returncode != 0:
        sys.exit(f"--cpu-run {run}: drawing its datasets again failed:\n{result.stderr[-4000:]}")
    kept, drawn = json.loads((run / "datasets.json").read_text()), dataset_digests(run / root)
    differ = [name for name, digest in kept.items() if drawn.get(name) != digest]
    return (f"the kept run's {len(kept)} datasets drawn again on this machine: {len(kept) - len(differ)} with the same values"
            + (f"; different or missing (a difference downstream may come from them): {', '.join(differ)}" if differ else ""))


def settle_times(run: Path, configfiles: list[Path], targets: list[str]) -> None:
    """Make the file times of a finished run copied from elsewhere (`--cpu-run`) consistent, oldest input
    first (`snakemake --touch`, mtime trigger only): a copy need not keep them, and a job whose inputs look
    newer would otherwise run again. A job out of date for another reason (its code or parameters) is left
    alone, so that it still runs again."""
    command = snakemake_command(run, configfiles, targets, "--cores", "1", "--touch", "--rerun-triggers", "mtime", "--quiet")
    result = subprocess.run(command, cwd=run, capture_output=True, text=True, env=package_env())
    if result.returncode != 0:
        sys.exit(f"--cpu-run {run}: snakemake --touch failed:\n{result.stderr[-4000:]}")


def rerun_on_device(device: str, cores: int, source: Path, workdir: Path, configfiles: list[Path], targets: list[str],
                    rules: list[str], gpus: int) -> tuple[dict[str, float], Path]:
    """A copy of the finished run in `source` in which every job of `rules` runs again on `device`
    (`--forcerun`), then whatever reads their outputs (`run_stages`): the other jobs' outputs are the CPU's,
    so each difference downstream comes from the device's jobs."""
    shutil.copytree(source, workdir, symlinks=True, dirs_exist_ok=True)
    return run_stages(device, cores, workdir, configfiles, targets, gpus,
                      {"train": ["--forcerun", *rules, "--until", *rules], "rest": []})


def verdict_agreement(cpu: Path, device: Path, label: str = "cuda") -> list[str]:
    """Each ledger of STUDY_LEDGERS on both devices, claim by claim: one line per claim whose verdict differs,
    then one line per ledger counting the claims with the same verdict (every claim must have it)."""
    lines = []
    for table in STUDY_LEDGERS:
        merged = pd.read_parquet(cpu / table)[["claim", "verdict", "ours_mean"]].merge(
            pd.read_parquet(device / table)[["claim", "verdict", "ours_mean"]], on="claim", how="outer", suffixes=("_cpu", "_dev"))
        differ = merged[merged["verdict_cpu"] != merged["verdict_dev"]]
        lines += [f"{table} {row.claim}: cpu {row.verdict_cpu} ({row.ours_mean_cpu:.4g}), {label} {row.verdict_dev} "
                  f"({row.ours_mean_dev:.4g}) DIFFERENT" for row in differ.itertuples()]
        lines.append(f"{table}: {len(merged) - len(differ)} of {len(merged)} claims with the same verdict on both devices "
                     f"({'ok' if differ.empty else 'OUTSIDE'})")
    return lines


def training_times(workdir: Path, rules: list[str]) -> pd.Series:
    """Each job of `rules` (rule/wildcards): its benchmark's wall time."""
    return pd.Series({f"{rule}/{path.stem}": float(pd.read_csv(path, sep="\t")["s"].iloc[0])
                      for rule in rules for path in sorted((workdir / "benchmarks" / rule).glob("*.tsv"))}, name="seconds")


def column_lines(table: str, at: str, cpu: pd.DataFrame, gpu: pd.DataFrame) -> list[str]:
    """One line per float column of `table` (its rows `at` a step, or all of them): the largest difference
    between the devices' rows, matched on the other columns, over the column's largest CPU magnitude, and
    whether it is within tolerance. A value missing (NaN) on one device only is outside; a column with no
    value on either is reported; rows that do not match one to one are outside."""
    keys = [column for column in cpu if not pd.api.types.is_float_dtype(cpu[column])]
    merged = cpu.merge(gpu, on=keys, suffixes=("_cpu", "_gpu"), validate="one_to_one")
    if len(merged) != len(cpu) or len(merged) != len(gpu):
        return [f"{table}{at}: the CPU's and the GPU's rows differ in their keys {keys} (OUTSIDE)"]
    lines = []
    for column in (column for column in cpu if column not in keys):
        a, b = merged[f"{column}_cpu"].to_numpy(float), merged[f"{column}_gpu"].to_numpy(float)
        if np.isnan(a).all() and np.isnan(b).all():
            lines.append(f"{table} {column}{at}: no value on either device")
            continue
        difference = np.inf if (np.isnan(a) != np.isnan(b)).any() else float(np.nanmax(np.abs(a - b)) / max(np.nanmax(np.abs(a)), np.finfo(float).tiny))
        lines.append(f"{table} {column}{at}: max difference {difference:.2e} of its largest value "
                     f"({'ok' if difference <= RELATIVE_TOLERANCE else 'OUTSIDE'} at {RELATIVE_TOLERANCE:.0%})")
    return lines


def study_agreement(cpu: Path, gpu: Path) -> list[str]:
    """The registered comparison of each study table (STUDY_TARGETS): `column_lines` at each device's own
    last recorded step (or over every row of a table without a step)."""
    lines = []
    for table in STUDY_TARGETS:
        frames = [pd.read_parquet(root / table) for root in (cpu, gpu)]
        step = next((column for column in STEP_COLUMNS if column in frames[0]), None)
        at = ""
        if step:
            last = [frame[step].max() for frame in frames]
            frames = [frame[frame[step] == value].drop(columns=step) for frame, value in zip(frames, last)]
            at = f" at {step} {last[0]}" + (f" (cuda: {last[1]})" if last[1] != last[0] else "")
        lines += column_lines(table, at, *frames)
    return lines


def curve_agreement(cpu: Path, gpu: Path) -> list[str]:
    """A comparison that does not depend on where a stop rule ends a run, added 2026-11-26 after the
    induction head's registered comparison (`study_agreement`) came out outside at its final step, and
    committed before this comparison's first run: each study table with a curve (STUDY_TARGETS with a
    step or epoch column), over every step that both devices recorded, `column_lines` with the same 2% of
    each column's largest CPU magnitude on those steps. It adds to the registered verdict, never replaces it."""
    lines = []
    for table in STUDY_TARGETS:
        frames = [pd.read_parquet(root / table) for root in (cpu, gpu)]
        step = next((column for column in STEP_COLUMNS if column in frames[0]), None)
        if step is None:
            continue
        common = np.intersect1d(frames[0][step], frames[1][step])
        frames = [frame[frame[step].isin(common)] for frame in frames]
        lines += column_lines(table, f" over {step}s {common.min()}-{common.max()}", *frames)
    return lines


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
    parser.add_argument("--cpu-run", type=Path,
                        help="a finished CPU run to compare with: the folder holding its results/ and benchmarks/, KEEP/cpu of "
                             "a run kept with --keep (default: run one)")
    parser.add_argument("--cpu-only", action="store_true",
                        help="build the CPU run only and stop, kept with --keep (KEEP/cpu), for --cpu-run on another machine")
    parser.add_argument("--configfile", type=Path, nargs="*", default=[],
                        help="configs merged over config/config.yaml before the device (default: none, the paper config)")
    parser.add_argument("--keep", type=Path, help="keep the runs under this folder (cpu/, device/, shared/)")
    parser.add_argument("--studies", action="store_true",
                        help="instead of Figs. 3, 4(a) and 8: one training job of each study that can train on a GPU")
    parser.add_argument("--shared", type=int,
                        help="training jobs sharing the GPU in the third run (0 leaves that run out; default 8, "
                             "and 0 with --studies)")
    parser.add_argument("--study-gpus", type=int, default=4,
                        help="with --studies: device jobs sharing the GPU in the device run (default 4)")
    parser.add_argument("--device", default="cuda", choices=["cuda", "cpu"],
                        help="the device compared with the CPU (default cuda; cpu runs the check's plumbing without a GPU)")
    args = parser.parse_args()
    if args.shared is None:
        args.shared = 0 if args.studies else 8
    import torch

    if args.cpu_only and (args.cpu_run or not args.keep):
        parser.error("--cpu-only needs --keep (where the CPU run is kept) and no --cpu-run")
    if args.cpu_run and not (args.cpu_run / "benchmarks").is_dir():
        sys.exit(f"--cpu-run {args.cpu_run}: no benchmarks/ folder there; give the folder the kept run was built in (KEEP/cpu)")
    if args.device == "cuda" and not torch.cuda.is_available() and not args.cpu_only:
        sys.exit("torch sees no CUDA GPU: this check needs one (see docs/cluster.md)")
    targets = STUDY_TARGETS + STUDY_LEDGERS if args.studies else TARGETS
    rules = list(dict.fromkeys(device_keys(load_studies(load_yaml(REPO / "config" / "config.yaml")["studies"]))))
    configfiles = [path.resolve() for path in args.configfile]
    scratch = args.keep or Path(tempfile.mkdtemp(prefix="icdenoise-gpu-"))
    runs, walls = {}, {}
    for run, device, gpus in (("cpu", "cpu", 1), ("device", args.device, 1), ("shared", args.device, args.shared)):
        if gpus == 0:
            continue
        if run == "cpu" and args.cpu_run:
            runs[run] = args.cpu_run.resolve()
            if (runs[run] / "datasets.json").is_file() and not (runs[run] / DATASETS).is_dir():
                print(redraw_datasets(runs[run], args.cores, configfiles, targets), flush=True)
            settle_times(runs[run], configfiles, targets)
            continue
        if run != "cpu" and args.cpu_only:
            break
        (scratch / run).mkdir(parents=True)
        if run == "device" and args.studies:
            cpu_workdir = args.cpu_run if args.cpu_run else scratch / "cpu"
            gpus = args.study_gpus
            walls[run], runs[run] = rerun_on_device(device, args.cores, cpu_workdir, scratch / run, configfiles, targets, rules, gpus)
        else:
            walls[run], runs[run] = build(device, args.cores, scratch / run, configfiles, targets, rules, gpus, trained_only=run == "shared")
        print(f"{run} ({device}, {gpus} GPU job(s) at a time): " + ", ".join(f"{stage} {wall:.1f} s" for stage, wall in walls[run].items())
              + " of wall time", flush=True)
    if args.cpu_only:
        (scratch / "cpu" / "datasets.json").write_text(json.dumps(dataset_digests(runs["cpu"]), indent=1) + "\n")
        print(f"the CPU run is in {scratch / 'cpu'}: carry it and give it to --cpu-run; carried without its {DATASETS}, "
              "it draws them again there and compares them with datasets.json")
        return
    label = args.device if args.device != "cpu" else "device"
    times = pd.concat({"cpu": training_times(runs["cpu"], rules), label: training_times(runs["device"], rules)}, axis=1)
    times["cpu/" + label] = times["cpu"] / times[label]
    where = torch.cuda.get_device_name() if args.device == "cuda" else args.device
    alone = f"up to {args.study_gpus} jobs sharing the GPU" if args.studies else "each job alone on the GPU"
    print(f"\ntraining jobs on {where} (seconds, {alone}):\n")
    print(times.round(2).to_string())
    print(f"\n{len(times)} training jobs' benchmarks: cpu {times['cpu'].sum():.1f} s, {label} {times[label].sum():.1f} s "
          f"in all; slowest {label} job {times[label].max():.1f} s ({times[label].idxmax()})")
    print("the training stage's wall time: " + "; ".join(f"{run} {wall['train']:.1f} s" for run, wall in walls.items()) + "\n")
    if args.studies:
        print("\n".join(study_agreement(runs["cpu"], runs["device"])))
        print("\nthe verdicts of the ledgers the device jobs feed (verdict_agreement):")
        print("\n".join(verdict_agreement(runs["cpu"], runs["device"], label)))
        print("\nthe curves over the steps both devices recorded (curve_agreement, not the registered verdict):")
        print("\n".join(curve_agreement(runs["cpu"], runs["device"])))
    else:
        print("\n".join(agreement(runs["cpu"], runs["device"])))
        if args.device == "cuda":
            report_floors({job: [seconds] for job, seconds in times["cuda"].items()}, merged_config(REPO, args.configfile),
                          probe_cuda(), where=torch.cuda.get_device_name())
    if not args.keep:
        shutil.rmtree(scratch)


if __name__ == "__main__":
    main()
