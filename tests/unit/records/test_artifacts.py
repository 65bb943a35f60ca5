"""Parquet artifacts: provenance metadata, atomic writes, dataset round trip."""

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from helpers import all_token_case, query_case

import icdenoise
from icdenoise.maths.tasks import GaussianMixture
from icdenoise.records import artifacts
from icdenoise.records.datasets import read_dataset, write_dataset


def test_metadata_records_params_versions_commit_config_and_inputs(tmp_path):
    source = tmp_path / "source.parquet"
    artifacts.write_parquet(pd.DataFrame({"x": [1.0]}), source, {"rule": "upstream"})
    path = tmp_path / "table.parquet"
    artifacts.write_parquet(pd.DataFrame({"x": [1.0, 2.0]}), path, {"case": "linear", "seed": 3}, inputs=[source],
                            config={"b": 1, "a": [2.0]})
    metadata = artifacts.read_metadata(path)
    assert metadata["params"] == {"case": "linear", "seed": 3}
    assert metadata["package_version"] == icdenoise.__version__
    assert metadata["library_versions"]["torch"].startswith("2.13.0") and metadata["library_versions"]["numpy"]
    assert len(metadata["git_commit"]) == 40 or metadata["git_commit"] == "unknown"
    assert metadata["git_dirty"] in (True, False, None)
    assert metadata["config_sha256"] == artifacts.config_digest({"a": [2.0], "b": 1})  # key order does not matter
    (record,) = metadata["inputs"]
    assert record["sha256"] == artifacts.sha256_file(source)
    assert record["provenance_sha256"] == artifacts.sha256_bytes(pq.read_schema(source).metadata[artifacts.METADATA_KEY])


def test_read_frames_names_the_file_with_a_missing_value(tmp_path):
    good, bad = tmp_path / "good.parquet", tmp_path / "bad.parquet"
    artifacts.write_parquet(pd.DataFrame({"mse": [0.1, 0.2], "note": [None, "x"]}), good, {})
    artifacts.write_parquet(pd.DataFrame({"mse": [0.1, np.nan]}), bad, {})
    assert len(artifacts.read_frames([good], finite=["mse"])) == 2  # only the named columns must be finite
    with pytest.raises(artifacts.MissingValues, match="bad.parquet: column 'mse' has 1 missing or non-finite"):
        artifacts.read_frames([good, bad], finite=["mse"])


def test_failed_write_leaves_nothing_behind(tmp_path, monkeypatch):
    def explode(table, where, **kwargs):
        with open(where, "wb") as handle:
            handle.write(b"PAR1 half a file")
        raise KeyboardInterrupt

    monkeypatch.setattr(pq, "write_table", explode)
    with pytest.raises(KeyboardInterrupt):
        artifacts.write_parquet(pd.DataFrame({"x": [1.0]}), tmp_path / "out.parquet", {})
    assert list(tmp_path.iterdir()) == []


def test_dataset_round_trip(tmp_path):
    prompts = query_case(GaussianMixture(n=3, K=2, radius=1.0, sigma0_sq=0.1), 0.1).sample(7, 5, seed=0)
    write_dataset(prompts, 5, tmp_path / "d.parquet", {"case": "gmm"})
    loaded, is_train = read_dataset(tmp_path / "d.parquet")
    np.testing.assert_allclose(loaded.context, prompts.context, rtol=1e-6)
    np.testing.assert_allclose(loaded.task["centres"], prompts.task["centres"], rtol=1e-6)
    assert loaded.context.shape == (7, 5, 3) and loaded.task["weights"].shape == (7, 2)
    assert is_train.tolist() == [True] * 5 + [False] * 2


def test_all_token_dataset_stores_the_noisy_tokens_once_and_reads_them_back_as_queries(tmp_path):
    prompts = all_token_case(GaussianMixture(n=2, K=2, radius=1.0, sigma0_sq=0.1), 0.3).sample(6, 4, seed=1)
    write_dataset(prompts, 4, tmp_path / "d.parquet", {"case": "gmm_all_tokens"})
    assert "query" not in pq.read_schema(tmp_path / "d.parquet").names
    loaded, _ = read_dataset(tmp_path / "d.parquet")
    assert loaded.query is loaded.context
    np.testing.assert_allclose(loaded.target, prompts.target, rtol=1e-6)
    np.testing.assert_allclose(loaded.context, prompts.context, rtol=1e-6)


def test_the_config_digest_leaves_out_how_jobs_run_and_nothing_else():
    settings = {"training": {"lr": 0.01}, "execution": {"training": {"device": "cpu", "threads": 1}}}
    base = artifacts.config_digest(settings)
    assert artifacts.config_digest({**settings, "execution": {"training": {"device": "cuda", "threads": 8}}}) == base
    assert artifacts.config_digest({"training": {"lr": 0.01}}) == base
    assert artifacts.config_digest({**settings, "training": {"lr": 0.02}}) != base
