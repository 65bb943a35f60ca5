"""The provenance chain command: from a table back to the dataset's parameters, flagging changed inputs."""

from pathlib import Path

import pandas as pd

from icdenoise.records import artifacts
from icdenoise.records.provenance import chain


def test_the_chain_reaches_the_dataset_parameters_and_flags_a_changed_input(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    dataset = Path("dataset.parquet")
    artifacts.write_parquet(pd.DataFrame({"x": [1.0]}), dataset,
                            {"rule": "sample_prompts", "wildcards": {"case": "gmm"}, "params": {"case": {"corruption": {"sigma_z_sq": 0.1}}}})
    table = Path("table.parquet")
    artifacts.write_parquet(pd.DataFrame({"y": [2.0]}), table, {"rule": "summarise", "wildcards": {}, "params": {"fig": {"k": 1}}},
                            inputs=[dataset])
    lines = chain(table, find="sigma_z_sq")
    assert lines[0].startswith("table.parquet: rule summarise")
    assert any("dataset.parquet: rule sample_prompts (case=gmm)" in line for line in lines)
    assert any("case.corruption.sigma_z_sq = 0.1" in line for line in lines)
    artifacts.write_parquet(pd.DataFrame({"x": [3.0]}), dataset, {"rule": "sample_prompts", "wildcards": {}, "params": {}})
    assert any("CHANGED since" in line for line in chain(table))
