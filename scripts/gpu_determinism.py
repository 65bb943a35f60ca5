#!/usr/bin/env python3
"""Whether the induction head's GPU runs are the same bits from run to run, with and without torch's deterministic
algorithms (docs/reproducibility.md). For each mode, two processes each train the 2-layer SGD and Adam runs of seed 0
(config/config.yaml's `memory.induction` block) twice, and say whether the two runs of a process are equal and
whether the two processes' first runs are.

    python3 scripts/gpu_determinism.py                 # on a machine with a CUDA GPU

Modes: `plain`, as the pipeline runs; `deterministic`, with torch.use_deterministic_algorithms(True, warn_only=True)
and CUBLAS_WORKSPACE_CONFIG=:4096:8 (cuBLAS reads it when it starts), which also prints every operation that torch
warns has no deterministic implementation. Timing and numbers only: no job of the pipeline runs this.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MODES = {"plain": {}, "deterministic": {"CUBLAS_WORKSPACE_CONFIG": ":4096:8"}}


def one_process(mode: str, out: str) -> None:
    """Train each optimiser's run twice here, print whether the two are equal, and keep the first runs in `out`."""
    import pandas as pd
    import torch
    import yaml

    from icdenoise.studies.memory.induction.training import train_run

    if mode == "deterministic":
        torch.use_deterministic_algorithms(True, warn_only=True)
    block = dict(yaml.safe_load((REPO / "config" / "config.yaml").read_text())["memory"]["induction"])
    cuda = torch.device("cuda")
    frames = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for optimizer in ("sgd", "adam"):
            first, second = (train_run(block, 2, optimizer, 0, cuda) for _ in range(2))
            difference = (first.select_dtypes("number") - second.select_dtypes("number")).abs().max().max()
            print(f"{mode} {optimizer}: two runs in one process equal: {first.equals(second)}; largest difference "
                  f"{difference:.3g}; final accuracy {first['accuracy'].iloc[-1]:.4f} / {second['accuracy'].iloc[-1]:.4f}",
                  flush=True)
            frames.append(first)
    for message in sorted({str(w.message).split(".")[0] for w in caught if "deterministic" in str(w.message).lower()}):
        print("no deterministic implementation:", message[:200])
    pd.concat(frames).to_parquet(out)


def main() -> int:
    if len(sys.argv) == 3:
        one_process(*sys.argv[1:])
        return 0
    import pandas as pd

    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO / "src"), os.environ.get("PYTHONPATH")])))
    with tempfile.TemporaryDirectory() as folder:
        for mode, variables in MODES.items():
            outs = [str(Path(folder) / f"{mode}_{index}.parquet") for index in (1, 2)]
            for out in outs:
                subprocess.run([sys.executable, __file__, mode, out], env={**environment, **variables}, check=True)
            print(f"{mode}: two processes equal: {pd.read_parquet(outs[0]).equals(pd.read_parquet(outs[1]))}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
