"""A sweep survives a diverging point, by a real Snakemake run: the smoke gmm case swept over training.lr ∈ {0.02, 10};
lr = 10 diverges (tests/integration/test_failures.py: outside a sweep the same training fails its job), and the
sweep's table says so in its row, with the step and the loss, while its figure is drawn."""

import subprocess

import pandas as pd
import pytest
import yaml
from runner import SNAKEMAKE, copy_workflow

from icdenoise.records.artifacts import read_metadata
from icdenoise.records.trained import divergence

pytestmark = pytest.mark.integration

RUN = "smoke_lr"
SWEEP = {"lr": {"cases": ["gmm"], "models": ["softmax"], "seeds": [0, 1], "grid": {"training.lr": [0.02, 10.0]}}}


def test_a_diverging_sweep_point_is_a_row_of_the_table_and_a_cross_in_the_figure(repo, tmp_path):
    workdir = copy_workflow(repo, tmp_path / "workflow")
    (workdir / "lr.yaml").write_text(yaml.safe_dump({"run": {"name": RUN}, "sweeps": SWEEP}))
    result = subprocess.run([SNAKEMAKE, "sweep_lr", "--cores", "1", "--configfile", "config/smoke.yaml", "lr.yaml"],
                            cwd=workdir, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
    run = workdir / "runs" / RUN
    table = pd.read_parquet(run / "results" / "sweeps" / "lr.parquet").set_index(["training.lr", "seed"]).sort_index()
    assert table["status"].to_dict() == {(0.02, 0): "trained", (0.02, 1): "trained", (10.0, 0): "diverged", (10.0, 1): "diverged"}

    trained, diverged = table.loc[0.02], table.loc[10.0]
    assert trained["mse"].notna().all() and trained["divergence_step"].isna().all() and trained["divergence_loss"].isna().all()
    assert (diverged["divergence_step"] == 4).all()  # 4 steps an epoch (40 prompts, batch 10), checked after epoch 1
    assert diverged[["mse", "sem", "ratio_to_bayes", "alpha", "beta"]].isna().all().all()
    assert (diverged["bayes_mse"] == trained["bayes_mse"].iloc[0]).all()  # the point's closed form is still computed

    # the row's step and loss are the training's own records: its larger loss at that step, over 100 times the zero predictor's
    training = run / "results" / "train" / "gmm.lr1" / "L20" / "softmax"
    losses = pd.read_parquet(training / "losses.parquet")
    at_step = losses[losses["step"] == 4].groupby("seed")["mse"].max()
    assert diverged["divergence_loss"].tolist() == at_step.loc[[0, 1]].tolist()
    record = divergence(training / "weights.parquet")
    zero = record[["zero_train_loss", "zero_test_loss"]].max(axis=1).to_numpy()
    assert (diverged["divergence_loss"].to_numpy() > 100 * zero).all()
    assert read_metadata(training / "weights.parquet")["params"]["params"]["training"]["on_divergence"] == "record"

    # nothing scored for the diverged model, and no row invented for it
    assert pd.read_parquet(run / "results" / "trained_scores" / "gmm.lr1" / "L20.parquet").empty
    assert "model softmax diverged in training at step 4: not scored" in (
        run / "logs" / "evaluate_trained" / "case=gmm.lr1,L=20.log").read_text()

    assert (run / "figures" / "sweeps" / "lr.pdf").read_bytes().startswith(b"%PDF")
    assert (run / "figures" / "sweeps" / "lr.png").stat().st_size > 0
