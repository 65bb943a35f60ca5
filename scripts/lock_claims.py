#!/usr/bin/env python3
"""Write each study's claims lock, ``claims.lock`` in its folder (icdenoise.pipeline.registry.Study.own_lock): the
digest of every claim's definition on config/config.yaml, and on every other config/*.yaml that names a run of its
own (icdenoise.records.registration). Commit the locks on their own, before the commit that records results, in
the git repository that holds each study.

A study that config/config.yaml does not name (one outside icdenoise.studies) is locked the same way: name the
config file that registers it with --configfile (merged over config/config.yaml as `snakemake --configfile`
merges it, with the study's folder on PYTHONPATH); then only the locks of the studies config/config.yaml does not
name are written, and every other lock is left as it is.

Usage: python scripts/lock_claims.py            write the lock of each study the config/*.yaml files register
       python scripts/lock_claims.py --check    list the claims whose definition differs from their lock
       PYTHONPATH=PATH python scripts/lock_claims.py --configfile PATH/NAME.yaml [--check]
                                                write (or check) the claims.lock of each study that PATH/NAME.yaml
                                                registers and config/config.yaml does not
A test checks that the committed locks equal this output.
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
from icdenoise.pipeline.codedeps import trains_in_shared_stage  # noqa: E402
from icdenoise.pipeline.definitions import claim_code, study_code  # noqa: E402
from icdenoise.records.registration import METHOD, lock_text, read_lock, study_digests  # noqa: E402

# The method before METHOD, whose lines this commit's locks keep beside the new ones, so that a claim whose definition it
# finds unchanged keeps its registration (icdenoise.records.registration, registered_in); None once they are dropped.
EARLIER_METHOD: int | None = None


def lock_lines(configs: list[tuple[dict, str]], only=lambda name: True, method: int = METHOD) -> dict[Path, dict[str, str]]:
    """Each study's lock file (icdenoise.pipeline.registry.Study.own_lock) → its lines `<prefix><study>.<claim>` →
    digest by `method`, for every study that each (config, prefix) registers and `only` accepts (by name): its
    definition, science settings, its own code and the study's jobs' code, as syntax (icdenoise.pipeline.definitions)."""
    locks: dict[Path, dict[str, str]] = {}
    codes: dict = {}  # what the configs share is read once: a study's jobs' code, a claim's own code

    def own_code(claim) -> str:
        if id(claim) not in codes:
            codes[id(claim)] = claim_code(claim)
        return codes[id(claim)]

    for config, prefix in configs:
        for name, study in validate_config(config, REPO / "workflow" / "schemas").items():
            if not only(name):
                continue
            registry = __import__(study.claims_module, fromlist=["CLAIMS"]).CLAIMS
            shared = trains_in_shared_stage(study, config)
            if (study.package, shared) not in codes:
                codes[study.package, shared] = study_code(study, REPO / "workflow", shared, method)
            digests = study_digests(name, registry, config[name]["claims"], study.claim_settings(config), prefix,
                                    codes[study.package, shared], own_code, method)
            locks.setdefault(study.own_lock, {}).update(digests)
    return locks


def configs(configfiles: list[Path] = ()) -> list[tuple[dict, str]]:
    """(config, prefix of its lock lines): config/config.yaml with `configfiles` merged over it, then the same for
    every other config/*.yaml that names a run of its own, merged before `configfiles` (as Snakemake merges
    `--configfile config/<that file> <configfiles>`); only the first where `configfiles` name a run themselves."""
    from snakemake.utils import update_config

    base = load_yaml(REPO / "config" / "config.yaml")
    extra = [load_yaml(path) for path in configfiles]

    def merged(*overrides: dict) -> dict:
        config = copy.deepcopy(base)
        for override in overrides:
            update_config(config, override)
        return config

    found = [(merged(*extra), run_prefix(merged(*extra)["run"]["name"], base["run"]["name"]))]
    if any((override.get("run") or {}).get("name") for override in extra):
        return found
    for path in sorted((REPO / "config").glob("*.yaml")):
        overrides = load_yaml(path)
        run = (overrides.get("run") or {}).get("name")
        if path.name == "config.yaml" or not run or run == base["run"]["name"]:
            continue
        found.append((merged(overrides, *extra), run_prefix(run, base["run"]["name"])))
    return found


def project_studies() -> set[str]:
    """The studies config/config.yaml names, whose locks --configfile leaves as they are."""
    return set(load_yaml(REPO / "config" / "config.yaml")["studies"])


def paper_locks(method: int = METHOD) -> dict[Path, dict[str, str]]:
    """The lines of each study's lock by `method`: its claims on config/config.yaml, then on every other config/*.yaml
    that names a run of its own, merged over config/config.yaml as Snakemake merges a --configfile."""
    return lock_lines(configs(), method=method)


def shown(path: Path) -> str:
    return path.relative_to(REPO).as_posix() if path.is_relative_to(REPO) else str(path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="list the claims whose definition differs from the lock; exit 1 if any")
    parser.add_argument("--configfile", nargs="+", type=Path, default=[], metavar="FILE",
                        help="config files that register studies config/config.yaml does not name: write (or check) only "
                             "those studies' claims.lock")
    arguments = parser.parse_args()
    try:
        if arguments.configfile:
            named = project_studies()
            chosen = configs(arguments.configfile)
            locks = lock_lines(chosen, lambda name: name not in named)
            earlier = {} if EARLIER_METHOD is None else lock_lines(chosen, lambda name: name not in named, EARLIER_METHOD)
        else:
            locks = paper_locks()
            earlier = {} if EARLIER_METHOD is None else paper_locks(EARLIER_METHOD)
    except (OSError, ValueError) as error:
        print(f"lock_claims.py: {error}", file=sys.stderr)
        return 2
    if arguments.configfile and not locks:
        print(f"lock_claims.py: {' '.join(map(str, arguments.configfile))} register no study that config/config.yaml does "
              "not name, whose claims.lock this would write; name the config file whose `studies` block names yours, or "
              "lock the studies config/config.yaml names with `python scripts/lock_claims.py`", file=sys.stderr)
        return 2
    if arguments.check:
        changed = []
        for path, digests in locks.items():
            text = path.read_text() if path.exists() else ""
            for method, expected in ((METHOD, digests), (EARLIER_METHOD, earlier.get(path, {}))):
                locked = read_lock(text, method) if method is not None else {}
                changed += sorted(f"{shown(path)}: {key} (method {method})" for key in expected.keys() | locked.keys()
                                  if expected.get(key) != locked.get(key))
        print("\n".join(changed) if changed else "\n".join(f"{shown(path)} is current" for path in locks))
        return 1 if changed else 0
    for path, digests in locks.items():
        path.write_text(lock_text(digests, earlier.get(path)))
        print(f"wrote {shown(path)}: {len(digests)} claim{'' if len(digests) == 1 else 's'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
