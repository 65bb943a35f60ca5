"""Prompt datasets as Parquet: one row per prompt, arrays stored as fixed-size float32 lists.

Columns: ``prompt`` (index), ``split`` (train | test: the first `n_train` prompts train), and
``context`` (L·n values, token-major), ``query``, ``target``, plus one column per task parameter
(``basis``, ``radius``, ``centres``, ``weights``, ``transform``). Under all-token corruption the
noisy tokens are both context and queries, so ``query`` is not stored: it is the context. Array
shapes are kept in the metadata under ``params.shapes``; the params also record the case's task
and corruption.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from icdenoise.maths.prompts import Prompts
from icdenoise.records.artifacts import read_metadata, write_parquet

ARRAY_COLUMNS = ("context", "query", "target")


def _fixed_size_column(values: np.ndarray) -> pa.Array:
    flat = values.reshape(values.shape[0], -1).astype(np.float32)
    if flat.shape[1] == 1:
        return pa.array(flat[:, 0])
    return pa.FixedSizeListArray.from_arrays(pa.array(flat.ravel()), flat.shape[1])


def prompts_table(prompts: Prompts, n_train: int) -> tuple[pa.Table, dict[str, list[int]]]:
    """(table, per-column array shapes without the prompt dimension)."""
    arrays = {"context": prompts.context, "query": prompts.query, "target": prompts.target, **prompts.task}
    if prompts.query is prompts.context:
        del arrays["query"]
    index = np.arange(prompts.n_prompts)
    columns = {
        "prompt": pa.array(index),
        "split": pa.array(np.where(index < n_train, "train", "test")),
        **{name: _fixed_size_column(np.asarray(value)) for name, value in arrays.items()},
    }
    shapes = {name: list(np.shape(value)[1:]) for name, value in arrays.items()}
    return pa.table(columns), shapes


def write_dataset(prompts: Prompts, n_train: int, path, params: dict, config: dict | None = None) -> None:
    """The prompts as Parquet, with `params` (and the arrays' shapes) and the config in the metadata."""
    table, shapes = prompts_table(prompts, n_train)
    write_parquet(table, path, {**params, "shapes": shapes, "n_train": n_train}, config=config)


def read_dataset(path) -> tuple[Prompts, np.ndarray]:
    """(prompts as float32 arrays, boolean mask of training prompts)."""
    shapes = read_metadata(path)["params"]["shapes"]
    table = pq.read_table(path)
    arrays = {}
    for name, shape in shapes.items():
        column = table.column(name).combine_chunks()
        values = column.flatten() if pa.types.is_fixed_size_list(column.type) else column
        arrays[name] = values.to_numpy().reshape(len(table), *shape)
    is_train = table.column("split").to_numpy(zero_copy_only=False) == "train"
    task = {name: value for name, value in arrays.items() if name not in ARRAY_COLUMNS}
    query = arrays.get("query", arrays["context"])
    return Prompts(arrays["context"], query, arrays["target"], task), is_train
