"""Named runs: the base config's run writes at the top, any other under runs/<name>/; the root a script reads
follows the config files as Snakemake merges them; a changed config that keeps the base's name is named."""

import sys

import pytest
import yaml

from icdenoise.pipeline.config import ConfigError, load_yaml, validate_config
from icdenoise.pipeline.named_runs import (
    compared_tables,
    configured_root,
    in_run,
    path_variables,
    run_root,
    save_config,
    saved_config_path,
    snakemake_command,
    typed,
    unnamed_changes,
)


def test_the_base_run_writes_at_the_top_and_any_other_under_runs():
    assert run_root("paper", "paper") == ""
    assert run_root("smoke", "paper") == "runs/smoke/"
    assert path_variables("") == {"results": "results", "figures": "figures", "logs": "logs", "benchmarks": "benchmarks"}
    assert path_variables("runs/smoke/")["figures"] == "runs/smoke/figures"
    assert saved_config_path("runs/smoke/").as_posix() == "runs/smoke/results/config.yaml"


def test_the_root_follows_the_last_config_file_that_names_a_run(tmp_path):
    base = tmp_path / "config.yaml"
    base.write_text("run: {name: paper}\ncases: {}\n")
    (tmp_path / "smoke.yaml").write_text("run: {name: smoke}\n")
    (tmp_path / "tweak.yaml").write_text("training: {lr: 0.1}\n")
    assert configured_root(base) == ""
    assert configured_root(base, [tmp_path / "smoke.yaml", tmp_path / "tweak.yaml"]) == "runs/smoke/"
    assert configured_root(base, [tmp_path / "tweak.yaml"]) == ""


@pytest.mark.parametrize("name", ["alltoken_full", "memory_full", "mssa_paper_scale"])
def test_each_longer_run_is_a_named_run_of_its_own(repo, name):
    # docs/claims.md, "Longer runs": each writes under runs/<name>/ and registers its claims under <name>/
    assert configured_root(repo / "config" / "config.yaml", [repo / "config" / f"{name}.yaml"]) == f"runs/{name}/"


def test_a_changed_config_under_the_base_name_is_named_by_its_changed_keys():
    base = {"run": {"name": "paper"}, "training": {"lr": 0.01}, "dataset": {"seed": 0}}
    assert unnamed_changes(base, base) == []
    assert unnamed_changes({**base, "training": {"lr": 0.1}}, base) == ["training"]
    assert unnamed_changes({**base, "execution": {"training": {"device": "cuda"}}}, base) == []  # how jobs run only
    assert unnamed_changes({**base, "run": {"name": "mine"}, "training": {"lr": 0.1}}, base) == []


def test_the_saved_config_reads_back_equal(tmp_path):
    config = {"run": {"name": "mine"}, "cases": {"linear": {"n": 4, "sigma0_sq": 2.0}}, "seeds": [0, 1]}
    path = save_config(config, tmp_path / "runs" / "mine" / "results" / "config.yaml")
    assert yaml.safe_load(path.read_text()) == config and not list(path.parent.glob(".*"))


@pytest.mark.parametrize("name", ["../paper", "runs/x", "", ".hidden", "a b", "x" * 65])
def test_a_run_name_that_is_not_a_safe_folder_name_is_refused(repo, name):
    config = load_yaml(repo / "config" / "config.yaml")
    config["run"]["name"] = name
    with pytest.raises(ConfigError, match=r"run\.name: .* does not match"):
        validate_config(config, repo / "workflow" / "schemas")


def test_a_compared_run_is_read_from_its_own_folder_and_an_unbuilt_one_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert in_run("<figures>/claims.parquet", "other", "paper") == "runs/other/figures/claims.parquet"
    assert in_run("<figures>/claims.parquet", "paper", "paper") == "figures/claims.parquet"
    ledgers = {"core": "<figures>/claims.parquet", "extra": "<figures>/extra/claims.parquet"}
    with pytest.raises(ConfigError, match=r"run 'paper' has no figures/leaderboard.parquet; no saved results/config.yaml and no "
                                         r"file in config/ names it \(run: \{name: paper\}\): check the name"):
        compared_tables(["mine", "paper"], "mine", "paper", ledgers)
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "base.yaml").write_text("run: {name: paper}\n")
    (tmp_path / "config" / "other.yaml").write_text("run: {name: other}\n")
    with pytest.raises(ConfigError, match=rf"has no figures/leaderboard.parquet; build it first: {snakemake_command()} --cores 2 "
                                          r"leaderboard --configfile config/base.yaml$"):
        compared_tables(["mine", "paper"], "mine", "paper", ledgers)
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "config.yaml").write_text("run: {name: paper}\n")
    with pytest.raises(ConfigError, match=r"build it first: .* --cores 2 leaderboard --configfile results/config.yaml$"):
        compared_tables(["mine", "paper"], "mine", "paper", ledgers)
    for path in ("figures/leaderboard.parquet", "figures/claims.parquet"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("")
    assert compared_tables(["mine", "paper"], "mine", "paper", ledgers) == [
        ("mine", "", "<figures>/leaderboard.parquet"), ("mine", "core", "<figures>/claims.parquet"),
        ("mine", "extra", "<figures>/extra/claims.parquet"),
        ("paper", "", "figures/leaderboard.parquet"), ("paper", "core", "figures/claims.parquet"),  # its extra ledger is not built
    ]


def executable(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


def test_a_suggested_command_names_the_snakemake_that_runs_as_it_can_be_typed_here(tmp_path, monkeypatch):
    venv = tmp_path / "project" / ".venv" / "bin"
    running = executable(venv / "snakemake")
    monkeypatch.setattr(sys, "argv", [str(running), "--cores", "2"])
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    monkeypatch.chdir(tmp_path / "project")
    assert snakemake_command() == ".venv/bin/snakemake"  # under the working directory: relative, as the README types it
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert snakemake_command() == str(running)
    monkeypatch.setenv("PATH", str(venv))  # an activated environment
    assert snakemake_command() == "snakemake"
    monkeypatch.setattr(sys, "argv", ["-c"])  # not run by snakemake: the one beside this Python
    monkeypatch.setattr(sys, "executable", str(executable(tmp_path / "other" / "bin" / "python")))
    executable(tmp_path / "other" / "bin" / "snakemake")
    assert snakemake_command() == str(tmp_path / "other" / "bin" / "snakemake")
    monkeypatch.setattr(sys, "executable", str(tmp_path / "bare" / "python"))
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    assert snakemake_command() == ".venv/bin/snakemake"  # none found: the README's


def test_a_program_found_on_path_only_through_a_link_is_typed_as_its_path(tmp_path, monkeypatch):
    system = executable(tmp_path / "usr" / "bin" / "python")
    venv_python = tmp_path / "venv" / "bin" / "python"
    venv_python.parent.mkdir(parents=True)
    venv_python.symlink_to(system)  # a virtual environment's python: PATH's python is the same file but lacks its packages
    monkeypatch.setenv("PATH", str(system.parent))
    monkeypatch.chdir(tmp_path)
    assert typed(venv_python) == "venv/bin/python" and typed(system) == "python"
    assert typed(executable(tmp_path / "tool")) == "./tool"
    monkeypatch.chdir(tmp_path / "usr")
    assert typed(venv_python) == str(venv_python)
