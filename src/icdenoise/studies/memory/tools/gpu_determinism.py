#!/usr/bin/env python3
"""Whether the induction head's GPU runs are the same bits from run to run, as the pipeline runs them (under
`maths.graphs.deterministic_algorithms`, which `induction.training` imports) and without torch's deterministic
algorithms (docs/reproducibility.md). For each mode, two processes each train the 2-layer SGD and Adam runs of seed 0 (config/config.yaml's
`memory.induction` block) twice, and say whether the two runs of a process are equal and whether the two processes'
first runs are.

    python3 -m icdenoise.studies.memory.tools.gpu_determinism [pipeline] [plain]   # on a machine with a CUDA GPU (default both)

Modes: `pipeline`, as `train_run` runs on a GPU; `plain`, the same with `induction.training`'s
`deterministic_algorithms` replaced by a block that changes nothing, as the pipeline ran before 2026-11-27. In
`pipeline` mode an operation with no deterministic implementation raises, naming it. Numbers only: no job of the pipeline runs this.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path.cwd()  # run from the repository's root, as every study tool is
MODES = ("pipeline", "plain")


def one_process(mode: str, out: str) -> None:
    """Train each optimiser's run twice here, print whether the two are equal, and keep the first runs in `out`."""
    import pandas as pd
    import torch
    import yaml

    from icdenoise.studies.memory.induction import training
    from icdenoise.studies.memory.induction.training import train_run

    if mode == "plain":
        training.deterministic_algorithms = contextlib.nullcontext
    block = dict(yaml.safe_load((REPO / "config" / "config.yaml").read_text())["memory"]["induction"])
    cuda = torch.device("cuda")
    frames = []
    for optimizer in ("sgd", "adam"):
        first, second = (train_run(block, 2, optimizer, 0, cuda) for _ in range(2))
        difference = (first.select_dtypes("number") - second.select_dtypes("number")).abs().max().max()
        print(f"{mode} {optimizer}: two runs in one process equal: {first.equals(second)}; largest difference "
              f"{difference:.3g}; final accuracy {first['accuracy'].iloc[-1]:.4f} / {second['accuracy'].iloc[-1]:.4f}",
              flush=True)
        frames.append(first)
    pd.concat(frames).to_parquet(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("modes", nargs="*", metavar="MODE", help=f"the modes checked, of {', '.join(MODES)} (default both)")
    parser.add_argument("--one-process", nargs=2, metavar=("MODE", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if set(args.modes) - set(MODES):  # checked here: argparse's choices refuse an empty nargs="*" list
        parser.error(f"unknown mode(s) {sorted(set(args.modes) - set(MODES))}; allowed: {', '.join(MODES)}")
    if args.one_process:
        one_process(*args.one_process)
        return 0
    import pandas as pd

    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO / "src"), os.environ.get("PYTHONPATH")])))
    with tempfile.TemporaryDirectory() as folder:
        for mode in args.modes or MODES:
            outs = [str(Path(folder) / f"{mode}_{index}.parquet") for index in (1, 2)]
            for out in outs:
                subprocess.run([sys.executable, "-m", __spec__.name, "--one-process", mode, out], env=environment, check=True)
            print(f"{mode}: two processes equal: {pd.read_parquet(outs[0]).equals(pd.read_parquet(outs[1]))}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
