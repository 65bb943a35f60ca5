"""Where a job runs on a SLURM cluster: its partition, its account and whether it gets a GPU.

They come from the user's environment, so that the profile (profiles/slurm/) needs no edit per
cluster; a variable that is unset or empty adds nothing, and the cluster's defaults apply. The rules
whose jobs can use a GPU are the shared stage's training (`SHARED_DEVICES`) and those a study names in
its `Study.devices`, each with the config key of its device. `docs/cluster.md` describes them.
"""

from __future__ import annotations

from collections.abc import Mapping

PARTITION = "SBATCH_PARTITION"  # every job's partition (also sbatch's own variable)
ACCOUNT = "SBATCH_ACCOUNT"  # the account every job is charged to (also sbatch's own variable)
GPU_PARTITION = "ICDENOISE_GPU_PARTITION"  # where training jobs that can use a GPU go

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
