"""scripts/gpu_check.py's comparison of a study's tables between a CPU and a GPU run (no GPU needed)."""

import numpy as np
import pandas as pd
import pytest
import yaml
from gpu_check import (DATASETS, STUDY_LEDGERS, STUDY_TARGETS, curve_agreement, dataset_digests, device_config, study_agreement,
                       verdict_agreement)

from icdenoise.pipeline.config import device_keys, load_yaml, setting
from icdenoise.pipeline.registry import load_studies


def write_runs(tmp_path, change):
    """Two runs with every study table: a curve (steps 0 and 10) for each; `change(table, frame)` edits the GPU's."""
    roots = tmp_path / "cpu", tmp_path / "cuda"
    for table in STUDY_TARGETS:
        frame = pd.DataFrame({"step": [0, 0, 10, 10], "seed": [0, 1, 0, 1], "loss": [1.0, 1.1, 0.5, 0.4],
                              "probe": [np.nan] * 4})
        for root, edited in zip(roots, (frame, change(table, frame.copy()))):
            (root / table).parent.mkdir(parents=True, exist_ok=True)
            edited.to_parquet(root / table)
    return roots


def verdicts(lines):
    return ["OUTSIDE" if "OUTSIDE" in line else "ok" if "ok at" in line else "none" for line in lines]


def test_equal_runs_agree_and_an_empty_column_is_reported(tmp_path):
    lines = study_agreement(*write_runs(tmp_path, lambda table, frame: frame))
    assert verdicts(lines) == ["ok", "none"] * len(STUDY_TARGETS)
    assert all("at step 10" in line for line in lines)


@pytest.mark.parametrize("scale, verdict", [(1.009, "ok"), (1.05, "OUTSIDE")])
def test_the_last_step_is_compared_against_its_largest_value(tmp_path, scale, verdict):
    def change(table, frame):
        frame.loc[frame["step"] == 10, "loss"] *= scale  # 0.5 → 0.5·scale: a difference of 0.5·(scale − 1) over 0.5
        frame.loc[frame["step"] == 0, "loss"] *= 3.0  # not the last step: never compared
        return frame

    assert verdicts(study_agreement(*write_runs(tmp_path, change)))[::2] == [verdict] * len(STUDY_TARGETS)


def test_a_value_missing_on_one_device_or_a_run_ending_elsewhere_is_reported(tmp_path):
    def change(table, frame):
        if table == STUDY_TARGETS[0]:
            frame.loc[3, "loss"] = np.nan
        if table == STUDY_TARGETS[1]:
            frame.loc[frame["step"] == 10, "step"] = 20
        if table == STUDY_TARGETS[2]:
            frame = frame.drop(index=3)
        return frame

    lines = study_agreement(*write_runs(tmp_path, change))
    assert "OUTSIDE" in lines[0]
    assert "at step 10 (cuda: 20): max difference 0.00e+00" in lines[2]
    assert "rows differ" in lines[4] and "OUTSIDE" in lines[4]


@pytest.mark.parametrize("scale, verdict", [(1.01, "ok"), (1.05, "OUTSIDE")])
def test_the_curves_are_compared_over_the_steps_both_devices_recorded(tmp_path, scale, verdict):
    def change(table, frame):
        frame.loc[frame["step"] == 0, "loss"] *= scale  # 1.1 → 1.1·scale: a difference of 1.1·(scale − 1) over 1.1
        return pd.concat([frame, frame[frame["step"] == 10].assign(step=20, loss=9.0)])  # only the GPU's: never compared

    lines = curve_agreement(*write_runs(tmp_path, change))
    assert verdicts(lines)[::2] == [verdict] * len(STUDY_TARGETS)
    assert all("over steps 0-10" in line for line in lines)


def test_the_device_config_sets_every_device_key(repo):
    config = yaml.safe_load(device_config("cuda"))
    keys = device_keys(load_studies(load_yaml(repo / "config" / "config.yaml")["studies"])).values()
    assert len(set(keys)) > 1
    assert {key: setting(config, key) for key in keys} == dict.fromkeys(keys, "cuda")


def test_verdicts_are_compared_claim_by_claim_and_a_flip_is_outside(tmp_path):
    roots = tmp_path / "cpu", tmp_path / "cuda"
    ledger = pd.DataFrame({"claim": ["a", "b"], "verdict": ["PASS", "INCONCLUSIVE"], "ours_mean": [1.0, 0.5]})
    for root in roots:
        for table in STUDY_LEDGERS:
            (root / table).parent.mkdir(parents=True, exist_ok=True)
            ledger.to_parquet(root / table)
    lines = verdict_agreement(*roots)
    assert lines == [f"{table}: 2 of 2 claims with the same verdict on both devices (ok)" for table in STUDY_LEDGERS]
    ledger.assign(verdict=["FAIL", "INCONCLUSIVE"], ours_mean=[0.9, 0.5]).to_parquet(roots[1] / STUDY_LEDGERS[0])
    lines = verdict_agreement(*roots)
    assert lines[0] == f"{STUDY_LEDGERS[0]} a: cpu PASS (1), cuda FAIL (0.9) DIFFERENT"
    assert lines[1] == f"{STUDY_LEDGERS[0]}: 1 of 2 claims with the same verdict on both devices (OUTSIDE)"


def test_a_datasets_digest_follows_its_values_not_its_files_metadata(tmp_path):
    """A dataset drawn again elsewhere is written with other provenance: the digest must not see that, and must
    see one value changed."""
    frame = pd.DataFrame({"x": [[0.5, 1.5], [2.5, 3.5]], "y": [1.0, 2.0]})
    runs = {name: tmp_path / name for name in ("kept", "again", "changed")}
    for name, run in runs.items():
        (run / DATASETS / "case").mkdir(parents=True)
        table = frame.assign(y=[1.0, 2.0 + (name == "changed") * 1e-12])
        table.attrs["written"] = name  # pandas keeps attrs in the file's metadata
        table.to_parquet(run / DATASETS / "case" / "L20.parquet")
    files = {name: (run / DATASETS / "case" / "L20.parquet").read_bytes() for name, run in runs.items()}
    assert files["again"] != files["kept"]
    digests = {name: dataset_digests(run) for name, run in runs.items()}
    assert list(digests["kept"]) == [f"{DATASETS}/case/L20.parquet"]
    assert digests["again"] == digests["kept"] != digests["changed"]
