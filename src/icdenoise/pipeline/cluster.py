"""Where a job runs on a SLURM cluster: its partition, its account and whether it gets a GPU; and the warning a
training job gets before its time limit.

They come from the user's environment, so that the profile (profiles/slurm/) needs no edit per
cluster; a variable that is unset or empty adds nothing, and the cluster's defaults apply. The rules
whose jobs can use a GPU are the shared stage's training (`SHARED_DEVICES`) and those a study names in
its `Study.devices`, each with the config key of its device. `docs/cluster.md` describes them.
"""

from __future__ import annotations

import signal
from collections.abc import Iterable, Mapping

PARTITION = "SBATCH_PARTITION"  # every job's partition (also sbatch's own variable)
ACCOUNT = "SBATCH_ACCOUNT"  # the account every job is charged to (also sbatch's own variable)
GPU_PARTITION = "ICDENOISE_GPU_PARTITION"  # where training jobs that can use a GPU go

CHECKPOINTS = "icdenoise.pipeline.checkpoints"  # a rule script that imports it saves checkpoints
WARNING = "--signal=USR1@45"
"""sbatch's option that has SLURM send SIGUSR1 to a job's processes 45 s before its time limit: a job that saves
checkpoints then saves and stops. SLURM checks the limits every 30 s, so the signal comes 45 to 75 s before the end."""

SHARED_DEVICES = {"train_ensemble": "execution.training.device"}
"""The shared stages' rules that can use a GPU, each with the config key of its device (auto, cpu or cuda)."""


def training_gpus(device: str, environ: Mapping[str, str]) -> int:
    """GPUs a training job asks for: one when it will use one, that is with ``device: cuda``, or with
    ``device: auto`` when a GPU partition is named (its nodes have GPUs, and `auto` picks them up)."""
    return int(device == "cuda" or (device == "auto" and bool(environ.get(GPU_PARTITION))))


def placement(device: str | None, environ: Mapping[str, str]) -> dict[str, str | int]:
    """The SLURM resources of a rule's jobs: ``slurm_partition``, ``slurm_account`` and, for a rule
    that can use a GPU (its `device` setting is not None), ``gpu`` (the executor turns it into ``--gpus``)."""
    resources: dict[str, str | int] = {}
    if environ.get(PARTITION):
        resources["slurm_partition"] = environ[PARTITION]
    if environ.get(ACCOUNT):
        resources["slurm_account"] = environ[ACCOUNT]
    if device is not None:
        resources["gpu"] = training_gpus(device, environ)
        if resources["gpu"] and environ.get(GPU_PARTITION):
            resources["slurm_partition"] = environ[GPU_PARTITION]
    return resources


def time_limit_warning(modules: Iterable[str]) -> dict[str, str]:
    """The ``slurm_extra`` resource (sbatch options the executor passes as they are) of a rule whose script imports
    `modules`: `WARNING` for one that saves checkpoints, nothing for the others, which would only die earlier."""
    return {"slurm_extra": WARNING} if CHECKPOINTS in modules else {}


def leave_warning_to_jobs(environ: Mapping[str, str]) -> bool:
    """In a SLURM job (``SLURM_JOB_ID`` is set), make this process, Snakemake in the job, ignore SIGUSR1; return
    whether it did.

    SLURM's warning before a job's time limit (``sbatch --signal=USR1@<seconds>``, which profiles/slurm gives the
    training rules) goes to every process of the job step: the Snakemake that runs the job there, the shell it
    starts and the job's script. Snakemake does not handle SIGUSR1, whose default action ends a process, so it would
    end before the script had saved. Ignored, the signal passes over it and its shell (an ignored disposition is
    inherited by the processes they start) to the script, whose `icdenoise.pipeline.checkpoints.Checkpoint` sets its
    own handler: the job saves and stops. A script that does not checkpoint ignores it too and runs to its limit.
    Outside SLURM nothing changes."""
    if not environ.get("SLURM_JOB_ID"):
        return False
    try:
        signal.signal(signal.SIGUSR1, signal.SIG_IGN)
    except ValueError:  # not the main thread: Snakemake parses the workflow in its main thread, so this is not it
        return False
    return True


def stalled_slurm_warning() -> str | None:
    """A warning when every `snakemake` call will stall: the SLURM executor plugin is installed (the
    ``slurm`` extra) and SLURM's commands are, but no controller answers. The plugin then runs
    ``scontrol show config`` as Snakemake starts, and that waits about 9 s for the controller. Timings
    taken so carry this constant; start the controller (scripts/slurm/start_local_cluster.sh) or time
    in an environment without the extra."""
    import importlib.util
    import shutil
    import subprocess

    if importlib.util.find_spec("snakemake_executor_plugin_slurm") is None or shutil.which("scontrol") is None:
        return None
    answer = subprocess.run(["scontrol", "ping"], capture_output=True, text=True, timeout=60)
    if answer.returncode == 0 and "UP" in answer.stdout:
        return None
    return ("the SLURM executor plugin is installed but no SLURM controller answers: every snakemake call "
            "waits about 9 s for `scontrol show config`; start scripts/slurm/start_local_cluster.sh or use a venv "
            "without the [slurm] extra (docs/cluster.md keeps it in .venv-slurm)")
