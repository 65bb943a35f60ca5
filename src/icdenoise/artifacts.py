"""Self-describing Parquet artifacts.

Every file carries, under the metadata key ``icdenoise``, a JSON document with the parameters
that produced it, the package and torch versions and the git commit. Files are written to a
temporary name in the destination folder and renamed into place, so an interrupted or failed
job never leaves a half-written output.
"""

from __future__ import annotations

import json
import os
import subprocess
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from . import __version__

METADATA_KEY = b"icdenoise"


def git_commit(directory: Path | None = None) -> str:
    """HEAD of the git checkout at `directory` (default: this package's source), or "unknown"."""
    directory = directory or Path(__file__).resolve().parent
    try:
        result = subprocess.run(
            ["git", "-C", str(directory), "rev-parse", "HEAD"], capture_output=True, text=True, check=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return result.stdout.strip()


def installed_version(package: str) -> str:
    """Version of an installed distribution, read without importing it (torch takes seconds)."""
    try:
        return version(package)
    except PackageNotFoundError:
        return "not installed"


def provenance(params: dict) -> dict:
    """The metadata document stored in every artifact."""
    return {
        "params": params,
        "package": "icdenoise",
        "package_version": __version__,
        "torch_version": installed_version("torch"),
        "git_commit": git_commit(),
    }


def write_parquet(data: pd.DataFrame | pa.Table, path: str | os.PathLike, params: dict) -> None:
    """Atomically write `data` to `path` with the provenance of `params` in its metadata."""
    table = data if isinstance(data, pa.Table) else pa.Table.from_pandas(data, preserve_index=False)
    metadata = dict(table.schema.metadata or {})
    metadata[METADATA_KEY] = json.dumps(provenance(params), sort_keys=True, default=str).encode()
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


def read_metadata(path: str | os.PathLike) -> dict:
    """The provenance document of an artifact."""
    return json.loads(pq.read_schema(path).metadata[METADATA_KEY])


def read_frames(paths) -> pd.DataFrame:
    """The tables at `paths`, stacked (they carry their own key columns: case, model, ...)."""
    return pd.concat([pd.read_parquet(path) for path in paths], ignore_index=True)


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
