"""Print the provenance chain of an artifact: its rule, params, commit and config, then each input's,
back to the datasets; and the devices the training jobs of a chain ran on (`training_devices`, which a ledger's
`built from` names).

    python -m icdenoise.records.provenance figures/fig3.parquet
    python -m icdenoise.records.provenance figures/fig3.parquet --find sigma_z_sq

Each input is checked against the content hash recorded when the artifact was written, so a file
changed since is flagged. Package source files among the inputs (rule inputs named ``code``) are
summarised in one line. Paths are read relative to the current directory (the workflow's).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from icdenoise.records.artifacts import METADATA_KEY, read_metadata, sha256_bytes, sha256_file

DEVICE_KEYS = ("device", "resolved_device")  # where a training job's params (artifacts.job_params' extras) record its
# device: the studies' own trainings write `device`, the shared stage's train_ensemble `resolved_device`


def _flatten(node, prefix: str = ""):
    """(dotted key, value) of every leaf of a nested dict."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _flatten(value, f"{prefix}.{key}" if prefix else str(key))
    else:
        yield prefix, node


def _describe(document: dict) -> str:
    dirty = {True: ", uncommitted changes " + str(document.get("git_diff_sha256", ""))[:12], False: "", None: ""}[document.get("git_dirty")]
    config = str(document.get("config_sha256") or "unknown")[:12]
    rule = document["params"].get("rule", "-")
    wildcards = ", ".join(f"{key}={value}" for key, value in document["params"].get("wildcards", {}).items())
    run = f"run {document['run']}; " if document.get("run") else ""
    return f"rule {rule}" + (f" ({wildcards})" if wildcards else "") + f"; {run}commit {document['git_commit'][:12]}{dirty}; config {config}"


def chain(path: Path, find: str | None = None, depth: int = 0, seen: set | None = None) -> list[str]:
    """Lines of the provenance tree rooted at `path`."""
    seen = set() if seen is None else seen
    indent = "    " * depth
    if path in seen:
        return [f"{indent}{path} (see above)"]
    seen.add(path)
    document = read_metadata(path)
    lines = [f"{indent}{path}: {_describe(document)}"]
    params = document["params"].get("params", document["params"])
    for key, value in _flatten(params):
        if find is None or find in key.split("."):
            lines.append(f"{indent}    {key} = {json.dumps(value)}")
    code = [record for record in document.get("inputs", []) if record["path"].endswith(".py")]
    if code:
        changed = [record["path"] for record in code if not Path(record["path"]).is_file() or sha256_file(record["path"]) != record["sha256"]]
        lines.append(f"{indent}    code: {len(code)} package files" + (f", changed since: {', '.join(changed)}" if changed else ", unchanged"))
    for record in document.get("inputs", []):
        source = Path(record["path"])
        if source.suffix == ".py":
            continue
        if not source.is_file():
            lines.append(f"{indent}  <- {source} (missing)")
            continue
        if sha256_file(source) != record["sha256"]:
            lines.append(f"{indent}  <- {source} (CHANGED since this file was written)")
        if "provenance_sha256" in record:
            lines += chain(source, find, depth + 1, seen)
        else:
            lines.append(f"{indent}  <- {source} (sha256 {record['sha256'][:12]})")
    return lines


def _linked(path: str, digest: str) -> dict | None:
    """The provenance document of the artifact at `path` if it is still the one whose digest a later artifact
    recorded (artifacts.input_record's ``provenance_sha256``), else None: missing, no artifact, or rewritten since."""
    import pyarrow.parquet as pq

    try:
        raw = (pq.read_schema(path).metadata or {}).get(METADATA_KEY)
    except (OSError, ValueError):  # missing, or not Parquet (pyarrow's ArrowInvalid is a ValueError)
        return None
    return json.loads(raw) if raw is not None and sha256_bytes(raw) == digest else None


def training_devices(tables: dict[str, dict]) -> dict[str, int]:
    """Device → how many jobs ran on it, over the provenance chains of `tables` (each table's path → its provenance
    document, artifacts.read_metadata), followed back through every input that is an artifact. A job counts where its
    params record its device (`DEVICE_KEYS`), once however many of its tables the chains reach (a job is its rule
    and wildcards). An input missing or rewritten since it was read is not followed. Sorted by device."""
    jobs: dict[tuple[str, str], str] = {}
    seen = set(map(str, tables))
    pending = [(str(path), document) for path, document in tables.items()]
    while pending:
        path, document = pending.pop()
        params = document.get("params") or {}
        device = next((params[key] for key in DEVICE_KEYS if params.get(key)), None)
        if device is not None:
            jobs[(str(params.get("rule") or path), json.dumps(params.get("wildcards") or {}, sort_keys=True))] = str(device)
        for record in document.get("inputs") or []:
            source = str(record.get("path", ""))
            if "provenance_sha256" in record and source not in seen:
                seen.add(source)
                linked = _linked(source, record["provenance_sha256"])
                if linked is not None:
                    pending.append((source, linked))
    return dict(sorted(Counter(jobs.values()).items()))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("artifact", type=Path, help="a Parquet file written by the pipeline")
    parser.add_argument("--find", help="print only the params whose key (or a part of its dotted path) is this")
    args = parser.parse_args(argv)
    import pyarrow.parquet as pq

    if not args.artifact.is_file() or METADATA_KEY not in (pq.read_schema(args.artifact).metadata or {}):
        parser.exit(1, f"{args.artifact}: not a Parquet file written by the pipeline\n")
    print("\n".join(chain(args.artifact, args.find)))


if __name__ == "__main__":
    main()
