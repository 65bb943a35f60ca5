"""A training step as one CUDA graph: the loop that the studies' GPU trainings share (the mssa study's regression
models, `studies.mssa.transformers.train_static`, and the memory study's induction head,
`studies.memory.induction.training.train_static`).

On a GPU the training of a small model is bound by the host (Python, a few thousand kernel launches a step, the
batches, a read-back of the loss), not by the GPU. A `StaticLoop` keeps Python off the hot path:
- every tensor the step reads or writes stays at one address: the parameters, the optimiser's state, the gradients
  (allocated by the capture's backward and never set to None between replays), a device buffer of `chunk_steps`
  steps' batches, vectors of per-step values (`vector`) and a step counter on the device, which the step advances
  (`advance`) and which picks its batch (`batch`), its row of a table computed beforehand (`row`: Adam's factors,
  `maths.adam.Adam.step_factors`) and the slot its values go to (`write`);
- the batches come from the host a chunk at a time, in one copy to the device buffer, through pinned memory on a
  GPU (`stage`);
- the step is captured once as a `torch.cuda.CUDAGraph` after `WARMUP_STEPS` eager steps on a side stream and
  replayed for the rest (`run`);
- a checkpoint is saved at the start of a chunk when it is due, so that a continued run stages the same batches.
Nothing is read back to the host inside the loop unless the study's own callbacks read it (its records).
With `capture=False` the same code runs eagerly on any device: on the CPU, the studies' unit tests' check.
"""

from __future__ import annotations

import contextlib
import math
import os
from typing import Callable

import torch

WARMUP_STEPS = 3  # steps run eagerly on the side stream before the CUDA graph is captured (torch.cuda.graph's docs: 3)


@contextlib.contextmanager
def deterministic_algorithms():
    """torch's deterministic algorithms while the block runs (`torch.use_deterministic_algorithms`), and the cuBLAS
    workspace they require, CUBLAS_WORKSPACE_CONFIG=:4096:8 unless the environment sets it (cuBLAS reads it at its
    first product in the process; torch raises for a value that is not deterministic). The setting before is
    restored after, so other work in the same process is left as it was."""
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    before = torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled()
    torch.use_deterministic_algorithms(True)
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(before[0], warn_only=before[1])


def stage(buffer: torch.Tensor, values: torch.Tensor) -> None:
    """Copy a chunk of host `values` into the first rows of the device `buffer` (through pinned memory on a GPU,
    without waiting for the copy: later work on the same stream sees it)."""
    buffer[: len(values)].copy_(values.pin_memory() if buffer.is_cuda else values, non_blocking=True)


class StaticLoop:
    """Steps 0 … `steps` − 1 of one training, every step the same code on tensors at fixed addresses (the module's
    docstring). `chunk_steps` (at most `steps`) steps' batches are staged at a time; `capture` (a CUDA device only)
    replays a captured graph after `WARMUP_STEPS` eager steps."""

    def __init__(self, steps: int, chunk_steps: int, device: torch.device, capture: bool):
        if capture and device.type != "cuda":
            raise ValueError(f"a CUDA graph needs a CUDA device, got {device}")
        self.steps, self.device, self.capture = steps, device, capture
        self.chunk_steps = max(1, min(chunk_steps, steps))
        self.counter = torch.zeros(1, dtype=torch.int64, device=device)  # the step the next `step()` runs

    def vector(self, fill: float = math.nan) -> torch.Tensor:
        """A device vector of one float32 per step, filled with `fill` until a step writes its slot."""
        return torch.full((self.steps,), fill, dtype=torch.float32, device=self.device)

    def buffer(self, *shape: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
        """A device buffer of one chunk of batches of `shape` each, zeros until staged."""
        return torch.zeros((self.chunk_steps, *shape), dtype=dtype, device=self.device)

    def batch(self, buffer: torch.Tensor) -> torch.Tensor:
        """The running step's batch in a chunk buffer: its slot, the step mod `chunk_steps`."""
        return buffer.index_select(0, self.counter.remainder(self.chunk_steps))[0]

    def row(self, table: torch.Tensor) -> torch.Tensor:
        """The running step's row of a table with one row per step."""
        return table.index_select(0, self.counter)[0]

    def write(self, vector: torch.Tensor, value: torch.Tensor) -> None:
        """`value` (a 0-d tensor) into the running step's slot of a per-step `vector`."""
        vector.index_copy_(0, self.counter, value.detach()[None])

    def advance(self) -> None:
        """The step counter to the next step: the last thing a step does."""
        self.counter.add_(1)

    def run(self, step: Callable[[], None], first: int, load: Callable[[int, int], None], *,
            before: Callable[[int], None] | None = None, after: Callable[[int], None] | None = None,
            checkpoint=None, state: Callable[[int], dict] | None = None, rewind: Callable[[], None] | None = None,
            finish: Callable[[], object] | None = None):
        """Run steps `first` … `steps` − 1 of `step` (no arguments; it reads its batch and rows through the counter
        and ends with `advance`), and return `finish()`, called after the last step on the stream that ran them.

        At each step s, in order: at the start of a chunk after `first`, `checkpoint.save(s, steps, state(s))` when
        `checkpoint.due(s)` (an icdenoise.pipeline.checkpoints.Checkpoint, or None); `before(s)`; at the start of a
        chunk, `load(s, count)`, which stages the batches of steps s … s + count − 1 into the chunk buffers (`stage`);
        the step, eagerly or as a replay; `after(s)`. The counter must hold `first` (a continued run sets it).

        With `capture` the graph is captured at step `first` + `WARMUP_STEPS`: the steps before run eagerly. Given
        `rewind` (which puts back the state saved at `first`: parameters and optimiser), a run continued at or past
        `WARMUP_STEPS` instead warms up on `WARMUP_STEPS` steps (fewer where fewer are left: a warm-up step writes its
        step's slots, and a slot past the last step does not exist), rewinds them and captures at `first`, so that it
        replays the graph at every step where a run that never stopped replays it."""
        capture_at = max(first, WARMUP_STEPS) if rewind is not None else first + WARMUP_STEPS
        graph, stream = None, torch.cuda.Stream(self.device) if self.capture else None
        if self.capture:
            stream.wait_stream(torch.cuda.current_stream(self.device))  # the buffers were filled on the default stream
        with torch.cuda.stream(stream) if self.capture else contextlib.nullcontext():
            for index in range(first, self.steps):
                if checkpoint is not None and index > first and index % self.chunk_steps == 0 and checkpoint.due(index):
                    checkpoint.save(index, self.steps, state(index))
                if before is not None:
                    before(index)
                if index % self.chunk_steps == 0:
                    load(index, min(self.chunk_steps, self.steps - index))
                if self.capture and index == capture_at:
                    if rewind is not None and first >= WARMUP_STEPS:
                        for _ in range(min(WARMUP_STEPS, self.steps - first)):  # never a step past the run's last
                            step()
                        rewind()
                        self.counter.fill_(first)
                    graph = torch.cuda.CUDAGraph()
                    with torch.cuda.graph(graph):
                        step()
                if graph is None:
                    step()
                else:
                    graph.replay()
                if after is not None:
                    after(index)
            return finish() if finish is not None else None
