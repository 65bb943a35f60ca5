"""The scaffold (python -m icdenoise.scaffold): the template study's files, renamed, for a built-in and an outside
study, and the names and folders it refuses, each with how to fix it."""

import sys
from pathlib import Path

import pytest
import yaml

from icdenoise.pipeline.named_runs import snakemake_command, typed
from icdenoise.scaffold import NAME, REPO, TEMPLATE, Renamed, ScaffoldError, scaffold, template_files


def test_it_writes_every_file_of_a_built_in_study_and_the_steps_to_register_it(tmp_path):
    steps = scaffold("toy", studies=tmp_path)
    written = {path.relative_to(tmp_path / "toy").as_posix() for path in (tmp_path / "toy").rglob("*") if path.is_file()}
    renamed = Renamed("toy", "icdenoise.studies.toy")
    assert written == {renamed(path.as_posix()) for path in template_files()} and "workflow/scripts/compute_toy.py" in written
    for path in template_files():
        text = (tmp_path / "toy" / renamed(path.as_posix())).read_text()
        assert text == renamed((TEMPLATE / NAME / path).read_text()) and NAME not in text
    rules = (tmp_path / "toy" / "workflow" / "rules.smk").read_text()
    assert "icdenoise.studies.toy.noisy_query:leaderboard_denoisers" in rules and '"compute_toy"' in rules
    assert 'f"toy.cases: {case!r} is not' in (tmp_path / "toy" / "study.py").read_text()  # a config key, not the package
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
    template = yaml.safe_load((TEMPLATE / f"{NAME}.yaml").read_text())
    assert block["toy"] == template[NAME] and NAME not in (tmp_path / "toy.yaml").read_text()
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
