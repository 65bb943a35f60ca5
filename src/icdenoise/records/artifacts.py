"""Self-describing Parquet artifacts.

Every file carries, under the metadata key ``icdenoise``, a JSON document: the parameters that
produced it (for a pipeline job: its rule, wildcards and params), the package's version and those of
its key libraries, the git commit with a dirty flag and a hash of the uncommitted diff, the digest of
the merged config in effect, and for each input file its content hash and, for an input that is an
artifact itself, the digest of that input's own document. `python -m icdenoise.records.provenance FILE`
follows those links back to the datasets.

Files are written to a temporary name in the destination folder and renamed into place, so an
interrupted or failed job never leaves a half-written output.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Iterable

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from icdenoise import __version__

METADATA_KEY = b"icdenoise"
LIBRARIES = ("torch", "numpy", "scipy", "pandas", "pyarrow", "snakemake")
SOURCE = Path(__file__).resolve().parent


def _git(*args: str) -> str | None:
    try:
        result = subprocess.run(["git", "-C", str(SOURCE), *args], capture_output=True, text=True, check=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    return result.stdout


@lru_cache(maxsize=1)
def git_state() -> dict:
    """The commit of this package's checkout, whether its tracked files differ from it, and a hash of
    that difference (so that two dirty trees are told apart)."""
    commit = _git("rev-parse", "HEAD")
    if commit is None:
        return {"git_commit": "unknown", "git_dirty": None, "git_diff_sha256": None}
    diff = _git("diff", "HEAD") or ""
    return {"git_commit": commit.strip(), "git_dirty": bool(diff), "git_diff_sha256": sha256_bytes(diff.encode()) if diff else None}


def installed_version(package: str) -> str:
    """Version of an installed distribution, read without importing it (torch takes seconds)."""
    try:
        return version(package)
    except PackageNotFoundError:
        return "not installed"


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: str | os.PathLike) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def canonical_json(value) -> str:
    """JSON with sorted keys: the same content always gives the same text, and so the same digest."""
    return json.dumps(value, sort_keys=True, default=str)


def config_digest(config: dict) -> str:
    """The sha256 of a config's settings: every block but `execution` (how jobs run, which changes no number), so
    that editing how a job runs neither re-runs a job nor makes its tables another config's."""
    return sha256_bytes(canonical_json({key: value for key, value in config.items() if key != "execution"}).encode())


def input_record(path: str | os.PathLike) -> dict:
    """An input's content hash, and for an artifact the digest of its own provenance document."""
    record = {"path": str(path), "sha256": sha256_file(path)}
    if str(path).endswith(".parquet"):
        raw = pq.read_schema(path).metadata or {}
        if METADATA_KEY in raw:
            record["provenance_sha256"] = sha256_bytes(raw[METADATA_KEY])
    return record


def provenance(params: dict, inputs: Iterable = (), config: dict | None = None) -> dict:
    """The metadata document stored in every artifact."""
    return {
        "params": params,
        "package": "icdenoise",
        "package_version": __version__,
        "library_versions": {library: installed_version(library) for library in LIBRARIES},
        **git_state(),
        "config_sha256": config_digest(config) if config is not None else None,
        "run": config.get("run", {}).get("name") if config is not None else None,  # the named run (pipeline.named_runs)
        "inputs": [input_record(path) for path in inputs],
    }


def job_params(snakemake, **extra) -> dict:
    """A pipeline job's own parameters: its rule, wildcards and params, plus anything it resolved."""
    params = {key: value for key, value in snakemake.params.items()}
    return {"rule": snakemake.rule, "wildcards": dict(snakemake.wildcards.items()), "params": params, **extra}


def write_job_parquet(data: pd.DataFrame | pa.Table, path: str | os.PathLike, snakemake, **extra) -> None:
    """`write_parquet` with a job's params, inputs and config (see `job_params`)."""
    write_parquet(data, path, job_params(snakemake, **extra), inputs=list(snakemake.input), config=snakemake.config)


def write_parquet(data: pd.DataFrame | pa.Table, path: str | os.PathLike, params: dict, inputs: Iterable = (),
                  config: dict | None = None) -> None:
    """Atomically write `data` to `path` with the provenance of `params`, `inputs` and `config`."""
    table = data if isinstance(data, pa.Table) else pa.Table.from_pandas(data, preserve_index=False)
    metadata = dict(table.schema.metadata or {})
    metadata[METADATA_KEY] = canonical_json(provenance(params, inputs, config)).encode()
    table = table.replace_schema_metadata(metadata)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")  # same folder: the rename is atomic
    try:
        pq.write_table(table, temporary)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_text(path: str | os.PathLike, text: str) -> None:
    """Atomically write a text output (a Markdown ledger, say): to a temporary name, then renamed."""
    path = Path(path)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(text)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def read_metadata(path: str | os.PathLike) -> dict:
    """The provenance document of an artifact."""
    return json.loads(pq.read_schema(path).metadata[METADATA_KEY])


class MissingValues(ValueError):
    """A table holds NaN, ±inf or missing values where a number is required."""


def read_frames(paths, finite: Iterable[str] = ()) -> pd.DataFrame:
    """The tables at `paths`, stacked (they carry their own key columns: case, model, ...). Every column
    in `finite` must hold finite numbers in every file: a missing or non-finite value is an error that
    names the file, never a row silently dropped downstream."""
    frames = []
    for path in [paths] if isinstance(paths, (str, os.PathLike)) else paths:
        frame = pd.read_parquet(path)
        for column in finite:
            if column not in frame:
                raise MissingValues(f"{path}: has no column {column!r}")
            bad = ~np.isfinite(pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=float))
            if bad.any():
                raise MissingValues(f"{path}: column {column!r} has {bad.sum()} missing or non-finite value(s) "
                                    f"(first in row {int(bad.argmax())})")
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)
