"""Where a job runs on a SLURM cluster: its partition, its account and whether it gets a GPU.

They come from the user's environment, so that the profile (workflow/profiles/slurm/) needs no edit
per cluster; a variable that is unset or empty adds nothing, and the cluster's defaults apply.
`docs/cluster.md` describes them.
"""

from __future__ import annotations

from collections.abc import Mapping

PARTITION = "SBATCH_PARTITION"  # every job's partition (also sbatch's own variable)
ACCOUNT = "SBATCH_ACCOUNT"  # the account every job is charged to (also sbatch's own variable)
GPU_PARTITION = "ICDENOISE_GPU_PARTITION"  # where training jobs that can use a GPU go
TRAINING_RULES = ("train_ensemble", "mssa_train_regression", "memory_train_induction")  # the rules that can use a GPU


def training_gpus(device: str, environ: Mapping[str, str]) -> int:
    """GPUs a training job asks for: one when it will use one, that is with ``device: cuda``, or with
    ``device: auto`` when a GPU partition is named (its nodes have GPUs, and `auto` picks them up)."""
    return int(device == "cuda" or (device == "auto" and bool(environ.get(GPU_PARTITION))))


def placement(rule: str, device: str, environ: Mapping[str, str]) -> dict[str, str | int]:
    """The SLURM resources of a rule's jobs: ``slurm_partition``, ``slurm_account`` and, for
    the training rules, ``gpu`` (the executor turns it into ``--gpus``); `device` is the rule's own device setting."""
    resources: dict[str, str | int] = {}
    if environ.get(PARTITION):
        resources["slurm_partition"] = environ[PARTITION]
    if environ.get(ACCOUNT):
        resources["slurm_account"] = environ[ACCOUNT]
    if rule in TRAINING_RULES:
        resources["gpu"] = training_gpus(device, environ)
        if resources["gpu"] and environ.get(GPU_PARTITION):
            resources["slurm_partition"] = environ[GPU_PARTITION]
    return resources
