"""The scaffold (python -m icdenoise.scaffold): what it writes for a built-in and an outside study, and the names
and folders it refuses, each with how to fix it."""

import sys
from pathlib import Path

import pytest
import yaml

from icdenoise.pipeline.named_runs import snakemake_command, typed
from icdenoise.scaffold import FILES, REPO, ScaffoldError, scaffold


def test_it_writes_every_file_of_a_built_in_study_and_the_steps_to_register_it(tmp_path):
    steps = scaffold("toy", studies=tmp_path)
    written = {path.relative_to(tmp_path / "toy").as_posix() for path in (tmp_path / "toy").rglob("*") if path.is_file()}
    assert written == {name.format(name="toy") for name in FILES}
    assert "icdenoise.studies.toy.noisy_query:leaderboard_denoisers" in (tmp_path / "toy" / "workflow" / "rules.smk").read_text()
    assert "config/config.yaml" in steps[0] and "toy: icdenoise.studies.toy" in steps[0]
    python = typed(Path(sys.executable), REPO)  # this environment's, as typed at the repository's root
    assert steps[1:] == [
        f"{python} scripts/config_table.py > config/README.md",
        "git add src/icdenoise/studies/toy config && git commit -m 'the toy study'",
        f"{python} scripts/lock_claims.py && git add src/icdenoise/studies/toy/claims.lock && git commit -m 'the toy claims'  "
        "# the lock in a commit of its own; build with the checkout clean",
        f"{snakemake_command(REPO)} --cores 2 toy leaderboard --configfile config/smoke.yaml"]


def test_an_outside_study_comes_with_the_config_file_that_registers_it(tmp_path):
    steps = scaffold("toy", outside=tmp_path)
    block = yaml.safe_load((tmp_path / "toy.yaml").read_text())
    assert block["studies"] == {"toy": "toy"} and block["toy"]["cases"] == ["linear", "sphere"]
    assert "tolerance_reason" in block["toy"]["claims"]["noisy_query_mse_is_noise_variance"]
    assert "from toy.noisy_query import" in (tmp_path / "toy" / "workflow" / "scripts" / "compute_toy.py").read_text()
    assert block["run"] == {"name": "toy"}  # its own run, runs/toy/: the smoke run's leaderboard and ledgers stay as built
    git, configs = f"git -C {tmp_path}", f"config/smoke.yaml {tmp_path / 'toy.yaml'}"
    assert steps[1:] == [
        f"{git} init  # the study's claims are registered in a git repository",
        f"{git} add toy toy.yaml && {git} commit -m 'the toy study'",
        f"PYTHONPATH={tmp_path} {typed(Path(sys.executable), REPO)} scripts/lock_claims.py --configfile {configs}  # writes "
        f"{tmp_path / 'toy' / 'claims.lock'}",
        f"{git} add toy/claims.lock && {git} commit -m 'the toy claims'  # the lock in a commit of its own; build with both "
        "checkouts clean",
        f"PYTHONPATH={tmp_path} {snakemake_command(REPO)} --cores 2 toy leaderboard --configfile {configs}"]
    (tmp_path / "repository" / ".git").mkdir(parents=True)  # as `git init` makes it
    in_a_repository = scaffold("toy", outside=tmp_path / "repository" / "studies")
    assert not any(" init " in step for step in in_a_repository) and len(in_a_repository) == len(steps) - 1


@pytest.mark.parametrize("name, message", [
    ("My-Study", "use lowercase letters, digits and underscores"),
    ("class", "use lowercase letters, digits and underscores"),
    ("leaderboard", "choose another name"),
    ("onelayer", "choose another name"),
    ("json", "already an importable module"),
])
def test_a_bad_or_taken_name_is_refused_with_how_to_fix_it(tmp_path, name, message):
    with pytest.raises(ScaffoldError, match=message):
        scaffold(name, outside=tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_an_existing_study_or_config_file_is_never_overwritten(tmp_path):
    scaffold("toy", outside=tmp_path)
    with pytest.raises(ScaffoldError, match="already exists: choose another name, or remove that folder first"):
        scaffold("toy", outside=tmp_path)
    (tmp_path / "other.yaml").write_text("mine\n")
    with pytest.raises(ScaffoldError, match="already exists: choose another name, or remove that file first"):
        scaffold("other", outside=tmp_path)
    assert (tmp_path / "other.yaml").read_text() == "mine\n" and not (tmp_path / "other").exists()


def test_the_example_claims_interval_treats_cases_sharing_noise_draws_as_one_draw(tmp_path, monkeypatch):
    import pandas as pd

    scaffold("toyinterval", outside=tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    from toyinterval.claims import mse_over_noise_variance

    table = pd.DataFrame({"ratio": [1.01, 1.01], "sem": [0.002, 0.004], "sigma_z_sq": [0.1, 0.1]})
    measurement = mse_over_noise_variance({"noisy_query": table}, {})
    half = 1.959964 * 0.03  # the mean of sem / σ_z²: the cases' errors taken as fully correlated
    assert measurement.interval == pytest.approx((1.01 - half, 1.01 + half), rel=1e-6)
    for name in [name for name in sys.modules if name.startswith("toyinterval")]:
        del sys.modules[name]
