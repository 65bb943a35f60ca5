"""The ledger's header line on which devices its training jobs ran: read from the provenance chains of the ledger's
tables, each job counted once, and nothing where no job of the chain records a device."""

import pandas as pd
import pytest

from icdenoise.records import registration as registration_module
from icdenoise.records import study_locks
from icdenoise.records.artifacts import read_metadata, write_parquet
from icdenoise.records.claims import ledger
from icdenoise.records.ledger_text import markdown, note_tables, trained_on, training_devices
from icdenoise.studies.onelayer.claims import CLAIMS as ONELAYER

H100 = "cuda (NVIDIA H100 80GB HBM3)"
SOURCES = {"run": "mssa_paper_scale", "files": [{"file": "config/mssa_paper_scale.yaml", "sha256": "ab" * 32}],
           "merged_sha256": "cd" * 32}
RUN_LINE = ("Run `mssa_paper_scale`. Config: `config/mssa_paper_scale.yaml` (sha256 abababababab); merged config sha256 "
            "cdcdcdcdcdcd (settings only: the execution block, which changes no number, is left out).")


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
    summary = job("results/summary.parquet", "summarise", trained)
    figure = job("figures/figure.parquet", "plot_figure", [summary])
    return {figure: read_metadata(figure)}


def ledger_table():
    spec = {"paper_value": 0.327, "comparison": "within_absolute", "tolerance": 0.01, "tolerance_reason": "seed spread",
            "inconclusive": ["interval"], "case": "linear", "model": "linear"}
    rows = pd.DataFrame({"case": "linear", "model": "linear", "seed": range(3), "alpha_beta": [0.328, 0.330, 0.329]})
    return ledger(ONELAYER, {"fig3": rows}, {"fig3_linear_alpha_beta": spec})


def test_the_devices_are_read_back_through_the_chain_each_job_once(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    tables = chain({"mssa": H100, "mhsa": H100, "transformer": "cpu"})
    assert training_devices(tables) == {"cpu": 1, H100: 2}  # six tables, three jobs
    assert trained_on(tables) == f"Trained on: cpu (1 job), {H100} (2 jobs)."
    text = markdown(ledger_table(), "a study", "snakemake x", SOURCES, devices=trained_on(tables))
    assert f"{RUN_LINE} Trained on: cpu (1 job), {H100} (2 jobs).\n" in text


def test_a_chain_that_records_no_device_says_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    tables = chain({"mssa": None, "mhsa": None})
    assert training_devices(tables) == {} and trained_on(tables) == "" and trained_on({}) == ""
    note_tables(tables)
    text = markdown(ledger_table(), "a study", "snakemake x", SOURCES)
    assert f"{RUN_LINE}\n" in text and "Trained on" not in text


def test_an_input_missing_or_rewritten_since_is_not_followed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    tables = chain({"mssa": H100, "mhsa": H100, "transformer": "cpu"})
    job("results/train/mssa/curve.parquet", "train_model", device="cpu", model="mssa", seed="0")  # not what was read
    job("results/train/mssa/errors.parquet", "train_model", device="cpu", model="mssa", seed="0")
    (tmp_path / "results/train/transformer/curve.parquet").unlink()
    (tmp_path / "results/train/transformer/errors.parquet").unlink()
    assert trained_on(tables) == f"Trained on: {H100} (1 job)."


def test_the_registration_notes_the_devices_for_the_next_markdown_only(tmp_path, monkeypatch):
    # write_ledger.py hands the tables' provenance to the registration, then writes the Markdown
    monkeypatch.chdir(tmp_path)
    tables = chain({"mssa": H100, "mhsa": H100})
    monkeypatch.setattr(registration_module, "defined_in", lambda root, study, digests: {})  # no git in a unit test
    registration_module.registration(tmp_path, "mssa", {}, {"git_commit": "unknown"}, tables)
    first, again = (markdown(ledger_table(), "a study", "snakemake x", SOURCES) for _ in range(2))
    assert f"{RUN_LINE} Trained on: {H100} (2 jobs).\n" in first and "Trained on" not in again
    monkeypatch.setattr(study_locks, "repository", lambda folder: None)
    study_locks.study_registration(tmp_path / "claims.lock", {}, {"git_commit": "unknown"}, tables)
    assert f"Trained on: {H100} (2 jobs)." in markdown(ledger_table(), "a study", "snakemake x", SOURCES)
    note_tables(tables)
    assert "Trained on" not in markdown(ledger_table(), "a study", "snakemake x", SOURCES, devices="")  # given: it wins


@pytest.mark.parametrize("key", ["device", "resolved_device"])
def test_both_names_of_a_jobs_device_count(tmp_path, monkeypatch, key):
    # the studies' own trainings write `device`, the shared stage's train_ensemble `resolved_device`
    monkeypatch.chdir(tmp_path)
    write_parquet(pd.DataFrame({"value": [1.0]}), "losses.parquet", {"rule": "train_ensemble", "wildcards": {}, key: "cpu"})
    assert trained_on({"losses.parquet": read_metadata("losses.parquet")}) == "Trained on: cpu (1 job)."
