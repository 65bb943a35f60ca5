#!/usr/bin/env python3
"""Write config/claims.lock: the digest of every claim's definition on config/config.yaml, and on every other
config/*.yaml that names a run of its own (icdenoise.records.registration). Commit the lock on its own,
before the commit that records results.

Usage: python scripts/lock_claims.py            write the lock
       python scripts/lock_claims.py --check    list the claims whose definition differs from the lock
A test checks that the committed lock equals this output.
"""

from __future__ import annotations

import argparse
import copy
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from icdenoise.pipeline.config import load_yaml, validate_config  # noqa: E402
from icdenoise.pipeline.named_runs import run_prefix  # noqa: E402
from icdenoise.pipeline.codedeps import study_code  # noqa: E402
from icdenoise.records.registration import LOCK, lock_text, read_lock, study_digests  # noqa: E402


def run_digests(config: dict, prefix: str) -> dict[str, str]:
    """`<prefix><study>.<claim>` → digest, for every study the config registers: its definition, science settings and
    the digest of the study's code (icdenoise.pipeline.codedeps.study_code)."""
    digests = {}
    for name, study in validate_config(config, REPO / "workflow" / "schemas").items():
        registry = __import__(study.claims_module, fromlist=["CLAIMS"]).CLAIMS
        code = study_code(study, config, REPO / "workflow")
        digests |= study_digests(name, registry, config[name]["claims"], study.claim_settings(config), prefix, code)
    return digests


def paper_digests() -> dict[str, str]:
    """The lock's lines: config/config.yaml's claims, then those of every other config/*.yaml that names a run
    of its own, merged over config/config.yaml as Snakemake merges a --configfile."""
    from snakemake.utils import update_config

    base = load_yaml(REPO / "config" / "config.yaml")
    digests = run_digests(base, "")
    for path in sorted((REPO / "config").glob("*.yaml")):
        overrides = load_yaml(path)
        run = (overrides.get("run") or {}).get("name")
        if path.name == "config.yaml" or not run or run == base["run"]["name"]:
            continue
        merged = copy.deepcopy(base)
        update_config(merged, overrides)
        digests |= run_digests(merged, run_prefix(run, base["run"]["name"]))
    return digests


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="list the claims whose definition differs from the lock; exit 1 if any")
    arguments = parser.parse_args()
    digests, path = paper_digests(), REPO / LOCK
    if arguments.check:
        locked = read_lock(path.read_text()) if path.exists() else {}
        changed = sorted(key for key in digests.keys() | locked.keys() if digests.get(key) != locked.get(key))
        print("\n".join(changed) if changed else "config/claims.lock is current")
        return 1 if changed else 0
    path.write_text(lock_text(digests))
    print(f"wrote {LOCK}: {len(digests)} claims")
    return 0


if __name__ == "__main__":
    sys.exit(main())
