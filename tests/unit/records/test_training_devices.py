"""The devices a ledger's training jobs ran on: read back through the provenance chains of the ledger's tables, each
job counted once, an input rewritten since not followed, and named in each row's `built from`."""

import pandas as pd
import pytest

from icdenoise.records import study_locks
from icdenoise.records.artifacts import read_metadata, write_parquet
from icdenoise.records.provenance import training_devices
from icdenoise.records.registration import built_from

H100 = "cuda (NVIDIA H100 80GB HBM3)"
CLEAN = {"git_commit": "abc1234" + "0" * 33, "git_dirty": False}


def job(path: str, rule: str, inputs=(), device: str | None = None, **wildcards) -> str:
    """Write a one-row table as the job `rule` (`wildcards`) would, with `device` among its parameters."""
    params = {"rule": rule, "wildcards": wildcards, "params": {}, **({"device": device} if device else {})}
    write_parquet(pd.DataFrame({"value": [1.0]}), path, params, inputs=list(inputs))
    return path


def chain(devices: dict[str, str | None]) -> dict[str, dict]:
    """A ledger's tables as the ledger's script reads them (path → provenance): a figure's table read from a summary of
    one training job per model (`devices`: model → its device or None), each job writing a curve and an errors table."""
    trained = []
    for model, device in devices.items():
        trained += [job(f"results/train/{model}/{name}.parquet", "train_model", device=device, model=model, seed="0")
                    for name in ("curve", "errors")]
    figure = job("figures/figure.parquet", "plot_figure", [job("results/summary.parquet", "summarise", trained)])
    return {figure: read_metadata(figure)}


def test_the_devices_are_read_back_through_the_chain_each_job_once(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    tables = chain({"mssa": H100, "mhsa": H100, "transformer": "cpu"})
    assert training_devices(tables) == {"cpu": 1, H100: 2}  # six tables, three jobs
    assert built_from(CLEAN, training_devices(tables)) == f"abc1234 (clean); trained on cpu: 1 job, {H100}: 2 jobs"


def test_a_chain_that_records_no_device_names_none(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    tables = chain({"mssa": None, "mhsa": None})
    assert training_devices(tables) == {} and training_devices({}) == {}
    assert built_from(CLEAN, training_devices(tables)) == built_from(CLEAN) == "abc1234 (clean)"


def test_an_input_missing_or_rewritten_since_is_not_followed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    tables = chain({"mssa": H100, "mhsa": H100, "transformer": "cpu"})
    for name in ("curve", "errors"):  # rewritten after the summary read them: not what the ledger's chain recorded
        job(f"results/train/mssa/{name}.parquet", "train_model", device="cpu", model="mssa", seed="0")
        (tmp_path / f"results/train/transformer/{name}.parquet").unlink()
    assert training_devices(tables) == {H100: 1}


@pytest.mark.parametrize("key", ["device", "resolved_device"])
def test_both_names_of_a_jobs_device_count(tmp_path, monkeypatch, key):
    # the studies' own trainings write `device`, the shared stage's train_ensemble `resolved_device`
    monkeypatch.chdir(tmp_path)
    write_parquet(pd.DataFrame({"value": [1.0]}), "losses.parquet", {"rule": "train_ensemble", "wildcards": {}, key: "cpu"})
    assert training_devices({"losses.parquet": read_metadata("losses.parquet")}) == {"cpu": 1}


def test_every_registered_row_names_the_devices_in_built_from(tmp_path, monkeypatch):
    # a study's lock lookup gives each row the devices of the tables it read
    monkeypatch.chdir(tmp_path)
    tables = chain({"mssa": H100, "mhsa": H100})
    monkeypatch.setattr(study_locks, "repository", lambda folder: None)
    rows = study_locks.study_registration(tmp_path / "claims.lock", {"mssa.a_claim": "0" * 64}, CLEAN, tables)
    assert rows["a_claim"]["built_from"] == f"abc1234 (clean); trained on {H100}: 2 jobs"
