"""The mssa study's training step at the paper's scale, timed two ways on one device: the per-step loop
(`train_per_step`: prompts drawn, copied and the loss read back every step) and the static loop
(`train_static`: one CUDA graph replayed on a GPU, prompts drawn ahead by worker processes, losses
read back at the records).

    .venv/bin/python -m icdenoise.studies.mssa.tools.step_bench --device cuda --out mssa_step_bench.csv
    .venv/bin/python -m icdenoise.studies.mssa.tools.step_bench --device cpu --tiny --warmup 4 --steps 8 --out /tmp/bench.csv
    .venv/bin/python -m icdenoise.studies.mssa.tools.step_bench --loops static --models mssa --out mssa.csv   # one loop, one model
    .venv/bin/python -m icdenoise.studies.mssa.tools.step_bench --loops static --compile max-autotune-no-cudagraphs --out compiled.csv
    .venv/bin/python -m icdenoise.studies.mssa.tools.step_bench --loops static --models mssa --warmup 500 --steps 49500 --progress \
        --out mssa.csv --curves mssa_curve.csv     # MSSA's whole paper-scale training on the sparse task, seed 0

Each model of config/mssa_paper_scale.yaml (merged over config/config.yaml) is built from seed 0 and
trained for warmup + steps steps by each loop, recording every `warmup` steps; a loop's ms/step is the
time from the record at step `warmup` to the last record over the steps between them (records are
logged after the losses are on the host, so the GPU has finished those steps). The two loops train on
the same prompts from the same weights, so their recorded losses agree to rounding: the table gives the
largest relative difference when both loops ran (`--loops`). Several of these processes
at once on one GPU (one `--models` each) time the steps of runs sharing it. `--tiny` swaps the paper's sizes for width 16, 2 heads, 2 layers and batch 8,
to check the plumbing on a CPU. `--precision high` times the step with TF32 matrix products, which the
pipeline never uses (icdenoise.maths.runtime): what a TF32 registration would buy. `--compile MODE` wraps
each freshly built model in `torch.compile(model, mode=MODE, dynamic=False)` before its loop, for timing
only (no run of the pipeline compiles its models): the compilation happens in the loop's first steps,
before any CUDA graph is captured, so it shows in the seconds to the record at step `warmup` (`*_start_s`),
not in ms/step.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path

import pandas as pd
import torch

from icdenoise.maths.runtime import resolve_device
from icdenoise.studies.mssa.tools import PAPER_SCALE, regression_block
from icdenoise.studies.mssa.transformers import build_model, parameter_count, train_per_step, train_static

TINY = dict(width=16, heads=2, layers=2, batch=8)


class Elapsed(logging.Handler):
    """Keeps (step, seconds since the loop started) of every record a training loop logs (`transformers.record`'s
    line: its third argument is `maths.training.progress`' "step N of T, …", its fifth the seconds)."""

    def __init__(self):
        super().__init__()
        self.rows = []

    def emit(self, record: logging.LogRecord) -> None:
        self.rows.append((int(record.args[2].split()[1]), record.args[4]))


def timed(loop, architecture: str, block: dict, layers: int, steps: int, warmup: int, device, compile_mode: str = "none",
          progress: bool = False, **options) -> tuple[pd.DataFrame, float, float]:
    """(curve, warm ms per step, seconds to the record at step `warmup`) of `loop` from a fresh seed-0 model,
    wrapped in `torch.compile` unless `compile_mode` is none (dynamo's caches emptied first, so it compiles afresh);
    with `progress`, each record's log line is printed as it comes."""
    model = build_model(architecture, block["d"], block["width"], block["heads"], layers, block["examples"], 0)
    if compile_mode != "none":
        torch._dynamo.reset()
        model = torch.compile(model, mode=compile_mode, dynamic=False)  # lazy: compiles at the loop's first step
    log = logging.getLogger(f"mssa.step_bench.{architecture}.{loop.__name__}")
    log.propagate = False
    log.setLevel(logging.INFO)
    elapsed = Elapsed()
    log.handlers = [elapsed] + ([logging.StreamHandler(sys.stdout)] if progress else [])
    curve = loop(model, "sparse", block["d"], block["nonzeros"], block["examples"], warmup + steps, block["batch"],
                 block["learning_rate"], block["clip"], 0, warmup, device=str(device), log=log, **options)
    log.handlers = []
    times = dict(elapsed.rows)
    last = max(times)
    return curve, (times[last] - times[warmup]) / (last - warmup) * 1e3, times[warmup]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="cuda", help="cpu, cuda or auto (default cuda)")
    parser.add_argument("--steps", type=int, default=300, help="warm steps timed per loop and model (default 300)")
    parser.add_argument("--warmup", type=int, default=50, help="steps before the timed ones (default 50)")
    parser.add_argument("--tiny", action="store_true", help=f"sizes {TINY} instead of the config's")
    parser.add_argument("--workers", type=int, help="prompt worker processes of the static loop (default: train_static's)")
    parser.add_argument("--models", nargs="*", help="the models to time (default: every model of the config)")
    parser.add_argument("--loops", nargs="+", choices=["per_step", "static"], default=["per_step", "static"],
                        help="the loops to time (default both)")
    parser.add_argument("--configfile", type=Path, default=PAPER_SCALE,
                        help="merged over config/config.yaml (default config/mssa_paper_scale.yaml)")
    parser.add_argument("--precision", choices=["highest", "high"], default="highest",
                        help="float32 matrix products on a GPU: highest (the pipeline's policy, full float32) or high "
                             "(TF32, for timing only: no run of the pipeline uses it; default highest)")
    parser.add_argument("--compile", choices=["none", "default", "max-autotune-no-cudagraphs"], default="none",
                        help="torch.compile mode of the models (timing only: no run of the pipeline uses it; default none)")
    parser.add_argument("--out", type=Path, required=True, help="the table as CSV")
    parser.add_argument("--progress", action="store_true", help="print each record's log line (normalized loss) as it comes")
    parser.add_argument("--curves", type=Path, help="also every loop's recorded curve, as CSV (model and loop columns added)")
    args = parser.parse_args()
    if args.warmup < 1 or args.steps < 1:
        parser.error("--warmup and --steps must be positive")
    block = regression_block(args.configfile)
    if args.tiny:
        block = {**block, **{key: value for key, value in TINY.items() if key != "layers"}}
    device = resolve_device(args.device)
    torch.set_float32_matmul_precision(args.precision)  # after resolve_device, which sets the pipeline's "highest"
    print(f"{args.configfile.name}{' (tiny)' if args.tiny else ''}: d {block['d']}, width {block['width']}, {block['heads']} heads, "
          f"batch {block['batch']}, {block['examples']} examples; {args.warmup} + {args.steps} steps per loop on {device}", flush=True)
    rows, recorded = [], []
    for architecture, options in block["models"].items():
        if args.models and architecture not in args.models:
            continue
        layers = TINY["layers"] if args.tiny else options["layers"]
        started = time.perf_counter()
        row = {"model": architecture, "layers": layers, "parameters": parameter_count(build_model(
                   architecture, block["d"], block["width"], block["heads"], layers, block["examples"], 0)),
               "device": str(device), "precision": args.precision, "compile": args.compile, "steps_timed": args.steps}
        curves = {}
        for name, loop, extra in (("per_step", train_per_step, {}), ("static", train_static, {"workers": args.workers})):
            if name in args.loops:
                curves[name], row[f"{name}_ms"], row[f"{name}_start_s"] = timed(loop, architecture, block, layers, args.steps,
                                                                                 args.warmup, device, args.compile, args.progress, **extra)
        row["records"] = len(next(iter(curves.values())))
        recorded += [curve.assign(model=architecture, loop=name) for name, curve in curves.items()]
        if len(curves) == 2:
            per_step, static = curves["per_step"], curves["static"]
            if list(per_step["step"]) != list(static["step"]):
                raise RuntimeError(f"{architecture}: the loops recorded different steps")
            row["speedup"] = row["per_step_ms"] / row["static_ms"]
            row["max_relative_loss_difference"] = ((static["loss"] - per_step["loss"]).abs() / per_step["loss"].abs()).max()
        rows.append({**row, "wall_s": time.perf_counter() - started})
        print(f"{architecture}: {rows[-1]['wall_s']:.1f} s", flush=True)
    table = pd.DataFrame(rows)
    print(table.to_string(index=False, float_format="{:.4g}".format))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out, index=False)
    print(f"written {args.out}")
    if args.curves:
        pd.concat(recorded).to_csv(args.curves, index=False)
        print(f"written {args.curves}")


if __name__ == "__main__":
    main()
