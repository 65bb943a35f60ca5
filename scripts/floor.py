"""The machine floor of a training job: the least time its arithmetic and its memory traffic allow.

A training job (`training.train_ensemble`) does `steps` optimiser steps, each on one minibatch of B
prompts per seed, and `records` full passes over the N_train + N_test prompts for the recorded losses.
For the one-layer models of eqs. 11-12 the arithmetic is a handful of products along the context:

- softmax attention (eq. 12), per (seed, prompt): the scores (W_KQ x̃)ᵀ X and the mixture X softmax(·)
  are 2·L·n multiply-adds each; the backward pass repeats both (the gradients of the softmax weights
  and of W_KQ x̃), so a step costs 4 products of 2·L·n flops per (seed, prompt) and a record 2;
- linear attention (eq. 11), per (seed, prompt): C W_KQ x̃ is 2·n² flops on the n × n second moment C,
  3 such products a step (forward and two gradients) and 1 a record.

The fewest bytes a step must move are the contexts it reads, once: S·B prompts of L·n float32 (each
seed draws its own minibatch), or S·B second moments of n² for linear attention. A record reads each
prompt once for all seeds (N·L·n or N·n² floats). The floor of a step or record is the larger of
flops / GEMM rate and bytes / memory bandwidth, both measured on one core (`probe_machine`): a GEMM rate
is an upper bound on what matrix-vector-shaped products reach, so the floor is optimistic on purpose.
The W_KQ, W_PV products (n² per prompt) and the n × n optimiser update are negligible and left out.
A job runs in a fresh process: its floor adds the time to start an interpreter that imports torch,
pandas and pyarrow, measured the same way.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

FLOAT32_BYTES = 4


@dataclass(frozen=True)
class Work:
    """Flops and bytes of one optimiser step and of one full loss record."""

    step_flops: float
    step_bytes: float
    record_flops: float
    record_bytes: float


@dataclass(frozen=True)
class MachineRates:
    """One core's measured float32 GEMM throughput (flop/s) and read bandwidth (byte/s), and the
    seconds a fresh interpreter takes to import what a training job imports."""

    gemm_flops_per_second: float
    read_bytes_per_second: float
    start_seconds: float = 0.0
    launch_seconds: float = 0.0

    def seconds(self, flops: float, moved_bytes: float) -> float:
        """The roofline floor of one unit of work: it is bound by compute or by memory, whichever is slower,
        and on a GPU it takes at least one kernel launch (`launch_seconds`; 0 on the CPU)."""
        return max(flops / self.gemm_flops_per_second, moved_bytes / self.read_bytes_per_second, self.launch_seconds)


def training_work(architecture: str, n: int, length: int, seeds: int, batch_size: int, n_prompts: int) -> Work | None:
    """Flops and bytes of a step and of a record for a one-layer model (None for the study models,
    whose costs are not modelled here)."""
    if architecture == "softmax":
        per_prompt_product = 2 * length * n
        context_bytes = length * n * FLOAT32_BYTES
    elif architecture == "linear":
        per_prompt_product = 2 * n * n
        context_bytes = n * n * FLOAT32_BYTES
    else:
        return None
    products_per_step = 4 if architecture == "softmax" else 3
    products_per_record = 2 if architecture == "softmax" else 1
    return Work(
        step_flops=products_per_step * per_prompt_product * seeds * batch_size,
        step_bytes=context_bytes * seeds * batch_size,
        record_flops=products_per_record * per_prompt_product * seeds * n_prompts,
        record_bytes=context_bytes * n_prompts,
    )


def job_counts(epochs: int, n_train: int, batch_size: int, record_every: int) -> tuple[int, int]:
    """(optimiser steps, loss records) of a training job: a record at step 0, every `record_every`
    steps, and at the last step if it falls between (as `train_ensemble` records)."""
    steps = epochs * math.ceil(n_train / batch_size)
    records = 1 + steps // record_every + (1 if steps % record_every else 0)
    return steps, records


def compute_floor_seconds(work: Work, steps: int, records: int, rates: MachineRates) -> float:
    """Every step and every record at the roofline of this machine's core."""
    return steps * rates.seconds(work.step_flops, work.step_bytes) + records * rates.seconds(work.record_flops, work.record_bytes)


def job_floor_seconds(work: Work, steps: int, records: int, rates: MachineRates) -> float:
    """The job's floor: its process start, then its arithmetic and memory traffic at the roofline."""
    return rates.start_seconds + compute_floor_seconds(work, steps, records, rates)


def _best_time(operation, repeats: int) -> float:
    operation()
    best = math.inf
    for _ in range(repeats):
        started = time.perf_counter()
        operation()
        best = min(best, time.perf_counter() - started)
    return best


def probe_machine(gemm_size: int = 1024, read_megabytes: int = 512, repeats: int = 5) -> MachineRates:
    """Measure one core: a float32 (gemm_size)² GEMM, a sum over a float32 array far larger than the
    caches, and a fresh interpreter importing torch, pandas and pyarrow (the best of `repeats` runs of each)."""
    import subprocess
    import sys

    import torch

    previous_threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        a = torch.rand(gemm_size, gemm_size)
        b = torch.rand(gemm_size, gemm_size)
        gemm_seconds = _best_time(lambda: a @ b, repeats)
        values = torch.rand(read_megabytes * 2**20 // FLOAT32_BYTES)
        read_seconds = _best_time(values.sum, repeats)
    finally:
        torch.set_num_threads(previous_threads)
    start_seconds = _best_time(lambda: subprocess.run([sys.executable, "-c", "import torch, pandas, pyarrow.parquet"], check=True),
                               repeats)
    return MachineRates(gemm_flops_per_second=2 * gemm_size**3 / gemm_seconds,
                        read_bytes_per_second=values.numel() * FLOAT32_BYTES / read_seconds, start_seconds=start_seconds)


def probe_cuda(gemm_size: int = 8192, read_megabytes: int = 4096, launches: int = 1000, repeats: int = 5) -> MachineRates:
    """Measure the CUDA GPU as training uses it: a float32 (gemm_size)² GEMM with TF32 off
    (`runtime.use_full_float32_precision`), a sum over a float32 array far larger than its L2 cache, the
    mean time of `launches` back-to-back one-element kernels, and a fresh interpreter importing torch,
    pandas and pyarrow and initialising CUDA (the best of `repeats` runs of each, synchronised)."""
    import subprocess
    import sys

    import torch

    from icdenoise.maths.runtime import use_full_float32_precision

    use_full_float32_precision()

    def synchronised(operation):
        def run():
            operation()
            torch.cuda.synchronize()
        return run

    a = torch.rand(gemm_size, gemm_size, device="cuda")
    b = torch.rand(gemm_size, gemm_size, device="cuda")
    gemm_seconds = _best_time(synchronised(lambda: a @ b), repeats)
    values = torch.rand(read_megabytes * 2**20 // FLOAT32_BYTES, device="cuda")
    read_seconds = _best_time(synchronised(values.sum), repeats)
    one = torch.zeros(1, device="cuda")

    def launch_many():
        for _ in range(launches):
            one.add_(1.0)

    launch_seconds = _best_time(synchronised(launch_many), repeats) / launches
    start_seconds = _best_time(lambda: subprocess.run(
        [sys.executable, "-c", "import torch, pandas, pyarrow.parquet; torch.zeros(1, device='cuda'); torch.cuda.synchronize()"],
        check=True), repeats)
    return MachineRates(gemm_flops_per_second=2 * gemm_size**3 / gemm_seconds,
                        read_bytes_per_second=values.numel() * FLOAT32_BYTES / read_seconds, start_seconds=start_seconds,
                        launch_seconds=launch_seconds)
