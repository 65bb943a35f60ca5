"""The smoke config's key outputs, pinned so that a refactor that moves a number fails.

`key_outputs(workdir)` reads them from a finished smoke run; `python tests/integration/pins.py DIR`
rewrites pinned_smoke.json from the run in DIR, for a change that moves numbers on purpose (say so in
the commit). The pins were first taken from main before the redesign into studies.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd
from runner import SMOKE

PINS = Path(__file__).with_name("pinned_smoke.json")


def key_outputs(workdir: Path) -> dict[str, float]:
    """Figure 3's per-run numbers, every closed form of the Figure 3 cases, and every claim's value."""
    values = {}
    fig3 = pd.read_parquet(workdir / SMOKE / "figures" / "fig3.parquet")
    for row in fig3.itertuples():
        for column in ("alpha", "beta", "final_train_mse", "final_test_mse", "bayes_mse"):
            values[f"fig3/{row.case}/{row.model}/{row.seed}/{column}"] = float(getattr(row, column))
    for case in ("linear", "sphere", "gmm"):
        bayes = pd.read_parquet(workdir / SMOKE / "results" / "bayes" / case / "L20.parquet")
        for row in bayes.itertuples():
            values[f"bayes/{case}/{row.estimator}/mse"] = float(row.mse)
    for row in pd.read_parquet(workdir / SMOKE / "figures" / "claims.parquet").itertuples():
        values[f"claims/{row.claim}/ours_mean"] = float(row.ours_mean)
    return values


if __name__ == "__main__":
    PINS.write_text(json.dumps(key_outputs(Path(sys.argv[1])), indent=1, sort_keys=True) + "\n")
    print(f"wrote {PINS}")
