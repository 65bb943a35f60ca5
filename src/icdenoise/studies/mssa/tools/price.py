"""The mssa study's in-context regression at the paper's scale, priced: each model of
config/mssa_paper_scale.yaml trained for a few thousand of its 50,000 steps on one device, the time a
step takes once warm, and the full run's cost extrapolated from it.

    .venv/bin/python -m icdenoise.studies.mssa.tools.price --steps 2000 --device cuda

The models, sizes, batch and learning rate are the config's (`mssa.regression`, merged over
config/config.yaml); training is the pipeline's own `train_model`, so a step includes drawing its
prompts on the CPU. The warm rate is read between the second record and the last, so the first steps
(allocation, autotuning) do not count; the loss at each record shows whether it falls.
"""

from __future__ import annotations

import argparse
import logging
import time
from pathlib import Path

from icdenoise.maths.runtime import resolve_device
from icdenoise.studies.mssa.tools import PAPER_SCALE, regression_block
from icdenoise.studies.mssa.transformers import build_model, parameter_count, train_model


class Records(logging.Handler):
    """Keeps (step, normalized loss, elapsed seconds) of every record `train_model` logs."""

    def __init__(self):
        super().__init__()
        self.rows = []

    def emit(self, record: logging.LogRecord) -> None:
        _, _, step, normalized_loss, elapsed = record.args
        self.rows.append((step, normalized_loss, elapsed))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=2000, help="steps per model (default 2000)")
    parser.add_argument("--device", default="auto", help="cpu, cuda or auto (default auto)")
    parser.add_argument("--task", default="sparse", help="the regression task (default sparse)")
    parser.add_argument("--models", nargs="*", help="the models to price (default: every model of the config)")
    parser.add_argument("--configfile", type=Path, default=PAPER_SCALE,
                        help="merged over config/config.yaml (default config/mssa_paper_scale.yaml)")
    args = parser.parse_args()
    block = regression_block(args.configfile)
    device = resolve_device(args.device)
    record_every = max(1, args.steps // 4)
    print(f"{args.configfile.name}: d {block['d']}, width {block['width']}, {block['heads']} heads, batch {block['batch']}, "
          f"{block['examples']} examples, learning rate {block['learning_rate']}, {block['steps']} steps in a full run; "
          f"{args.steps} steps here on {device}", flush=True)
    print("\n| model | layers | parameters | steps | warm ms/step | step 0 s | normalized loss by record | "
          f"{block['steps']} steps, h |\n|---|---|---|---|---|---|---|---|")
    for architecture, options in block["models"].items():
        if args.models and architecture not in args.models:
            continue
        model = build_model(architecture, block["d"], block["width"], block["heads"], options["layers"], block["examples"], 0)
        log = logging.getLogger(f"mssa.price.{architecture}")
        log.propagate = False
        log.setLevel(logging.INFO)
        records = Records()
        log.addHandler(records)
        started = time.perf_counter()
        train_model(model, args.task, block["d"], block["nonzeros"], block["examples"], args.steps, block["batch"],
                    block["learning_rate"], block["clip"], 0, record_every, device=str(device), log=log)
        wall = time.perf_counter() - started
        (_, _, start_seconds), (first_step, _, first_seconds), (last_step, _, last_seconds) = records.rows[0], records.rows[1], records.rows[-1]
        per_step = (last_seconds - first_seconds) / (last_step - first_step)
        losses = ", ".join(f"{loss:.3f}" for _, loss, _ in records.rows)
        print(f"| {architecture} | {options['layers']} | {parameter_count(model)} | {args.steps} ({wall:.0f} s) | {per_step * 1e3:.1f} | "
              f"{start_seconds:.1f} | {losses} | {per_step * block['steps'] / 3600:.2f} |", flush=True)


if __name__ == "__main__":
    main()
