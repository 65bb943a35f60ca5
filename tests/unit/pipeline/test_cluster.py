"""How a training job on SLURM hears of its time limit: the warning option its rule gets (only a rule whose script
saves checkpoints), the SLURM profile resubmitting exactly those rules, and SIGUSR1 passing over Snakemake in the job
to the script's checkpoint."""

import os
import re
import signal
import tempfile
from pathlib import Path

import yaml

from icdenoise.pipeline.checkpoints import Checkpoint
from icdenoise.pipeline.cluster import CHECKPOINTS, WARNING, leave_warning_to_jobs, time_limit_warning
from icdenoise.pipeline.codedeps import imported_modules

REPO = Path(__file__).resolve().parents[3]


def test_only_a_rule_whose_script_saves_checkpoints_gets_the_warning_before_its_time_limit():
    assert WARNING == "--signal=USR1@45"
    assert time_limit_warning(["icdenoise.maths.runtime", CHECKPOINTS]) == {"slurm_extra": WARNING}
    assert time_limit_warning(["icdenoise.maths.runtime"]) == {}


def checkpointing_rules() -> set[str]:
    """The rules of every rule script (its docstring's first words, "Rule <name>" or "Rules <name>, … and <name>")
    that imports icdenoise.pipeline.checkpoints, the shared stages' and every study's."""
    scripts = [*(REPO / "workflow" / "scripts").glob("*.py"), *(REPO / "src" / "icdenoise" / "studies").glob("*/workflow/scripts/*.py")]
    found = set()
    for script in scripts:
        if CHECKPOINTS in imported_modules(script):
            names = re.match(r'"""Rules? (\w+(?:, \w+)*(?: and \w+)?)[:.]', script.read_text())
            assert names, f"{script}: its docstring does not start with 'Rule <name>:'"
            found.update(re.split(r", | and ", names[1]))
    return found


def test_the_slurm_profile_resubmits_exactly_the_rules_that_save_checkpoints():
    rules = checkpointing_rules()
    assert {"train_ensemble", "train_mssa_regression", "train_memory_induction", "train_memory_induction_shakespeare",
            "train_memory_factual", "train_memory_mlp", "simulate_memory_factual_dynamics", "train_mssa_regression_grid_point",
            "train_mssa_language", "train_mssa_vision"} <= rules
    profile = yaml.safe_load((REPO / "profiles" / "slurm" / "config.yaml").read_text())
    assert set(profile["preemptible-rules"]) == rules and profile["preemptible-retries"] >= 1
    assert profile["retries"] == 0  # any other failed job is not resubmitted


def test_in_a_slurm_job_snakemake_ignores_the_warning_and_a_checkpoint_catches_it_in_its_place():
    """In a SLURM job, the process that reads the workflow (Snakemake in the job) ignores SIGUSR1, and so do the
    processes it starts (an ignored signal stays ignored across fork and exec: the job's shell and script) until a
    Checkpoint sets its own handler, which takes the signal as a stop and puts the ignoring back when it closes.
    Outside SLURM nothing changes. (tests/integration/test_slurm.py sends the signal to a real job step.)"""
    before = signal.getsignal(signal.SIGUSR1)
    try:
        assert not leave_warning_to_jobs({}) and signal.getsignal(signal.SIGUSR1) is before
        assert leave_warning_to_jobs({"SLURM_JOB_ID": "7"}) and signal.getsignal(signal.SIGUSR1) is signal.SIG_IGN
        os.kill(os.getpid(), signal.SIGUSR1)  # what SLURM sends every process of the job step: ignored here
        checkpoint = Checkpoint(Path(tempfile.mkdtemp()) / "job.checkpoint", {}, every_s=None)
        os.kill(os.getpid(), signal.SIGUSR1)
        assert checkpoint.stop_reason == "SIGUSR1 received"
        checkpoint.close()
        assert signal.getsignal(signal.SIGUSR1) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGUSR1, before)


def test_the_docs_list_exactly_the_profiles_preemptible_rules():
    """docs/cluster.md and docs/experiments.md name the training rules that resume: each list, from the sentence that
    names the profile's `preemptible-rules` to its closing parenthesis, is the profile's own."""
    profile = yaml.safe_load((REPO / "profiles" / "slurm" / "config.yaml").read_text())
    for doc in ("cluster.md", "experiments.md"):
        text = (REPO / "docs" / doc).read_text()
        listed = text[text.index("`preemptible-rules`: "):]
        listed = listed[:listed.index(")")]
        assert set(re.findall(r"`(\w+)`", listed)) - {"preemptible"} == set(profile["preemptible-rules"]), doc
