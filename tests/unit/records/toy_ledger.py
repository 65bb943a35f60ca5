"""For the tests of the ledger snapshots and the docs built from them: a toy claims ledger on disk, as workflow/scripts/write_ledger.py writes one, and the lock history it was
registered in (for the ledger snapshots and the docs built from them)."""

import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from icdenoise.records.claims import Claim, ledger
from icdenoise.records.holm import with_holm

BUILT, REGISTERED_IN = "b" * 40, "a" * 7  # the commit the toy ledger was built at, and the lock commit before it
LOCK = "# lock\ntoy.spread 1111222233334444\ntoy.single 5555666677778888\nlong/toy.spread 9999aaaabbbbcccc\nlong/toy.single dddd\n"
LOCKS = {BUILT: LOCK, REGISTERED_IN: LOCK}  # commit → the lines of its claims locks there
REGISTRY = {"spread": Claim("Fig. 1", "the spread is 1", lambda frames, spec: np.array([1.0, 1.1, 0.9])),
            "single": Claim("Fig. 2", "one value at most 2", lambda frames, spec: np.array([3.0]))}
CONFIG = {"spread": {"paper_value": 1.0, "comparison": "within_absolute", "tolerance": 0.2, "tolerance_reason": "why",
                     "inconclusive": ["interval"]},
          "single": {"paper_value": 2.0, "comparison": "at_most", "tolerance": 0.5, "tolerance_reason": "why", "inconclusive": [],
                     "exploratory": "the bound chosen after a result"}}


def write_toy_ledger(path, registered=True, run_prefix="", holm=True):
    """A toy study's ledger at `path`, built at BUILT; its rows registered in REGISTERED_IN, or not registered; with
    the family-wise adjustment's columns (icdenoise.records.holm), or, `holm` false, as older code wrote it."""
    rows = {claim: {"defined_in": REGISTERED_IN if registered else "not pre-registered (differs from toy/claims.lock)",
                    "built_from": f"{BUILT[:7]} (clean)", "registered": registered,
                    "registration": "registered" if registered else "not registered: its digest differs"}
            for claim in REGISTRY}
    frame = ledger(REGISTRY, {}, CONFIG, rows)
    table = pa.Table.from_pandas(with_holm(frame) if holm else frame.drop(columns="interval_method"), preserve_index=False)
    document = {"params": {"rule": "write_toy_ledger", "params": {"study": "toy", "registered_as": run_prefix}},
                "git_commit": BUILT, "git_dirty": False, "run": run_prefix.rstrip("/") or "paper"}
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table.replace_schema_metadata({b"icdenoise": json.dumps(document).encode()}), path)
    return path
