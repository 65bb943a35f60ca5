"""Checkpoints of long training jobs: a job saves its whole state now and then, stops cleanly on a signal or when
its time budget is spent, and the same command continues it where it stopped, bit for bit (docs/experiments.md).

How a job runs, not what it computes: the settings are the config's ``execution.checkpoint`` block (`settings`),
read by the job itself, never a param, so they re-run nothing and re-register no claim. A training loop that can
run long takes a `Checkpoint` (or None, and then it runs as it always did) and

- at its start, calls `resume()`: the state it saved last, or None (no checkpoint, or one refused because it
  belongs to other inputs, params or code: the reason is logged and the job starts from step 0). A job that can
  run one of several loops (a per-step loop on the CPU, a CUDA-graph loop on a GPU), whose states differ in shape
  or whose numbers differ in rounding, names the one it runs, ``resume(kind=...)``: a checkpoint saved by another
  is refused the same way, so that a job moved between a CPU and a GPU partition starts again rather than mixing;
- at each point where its whole state can be taken (an epoch's end, a chunk's start), asks `due(step)` and, if
  so, calls `save(step, total, state)` (pickled: the plumbing never imports torch, whose tensors pickle bit for
  bit; `total` is None where the count is not known ahead, as in a bisection). The state is the loop's own: the model, the optimiser, every random
  generator the rest of the run draws from, the step and the records so far. `save` writes the file and renames
  it into place (never a half-written checkpoint), and raises `Stopped` after saving when a stop was asked:
  SIGTERM, SIGINT, SIGUSR1 (what SLURM sends before a time limit, ``--signal``) or the time budget;
- at its end, calls `finish()`, which removes the file.

A rule's script holds the loop in `job_checkpoint`, which does the last step and ends a stopped job with its message.

The file lies beside the job's first output, hidden (``.<name>.checkpoint``): Snakemake deletes a failed job's
outputs, never that file, so the next run of the same job finds it. It records the job's identity (`identity`:
the rule, its wildcards and params, and the sha256 of every input file, its code included) and is used only by a
job with the same identity.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import pickle
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

FORMAT = 1  # bump when the saved payload changes shape
SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGUSR1)
DEFAULTS = {"every_s": 600.0, "every_steps": None, "budget_s": None}


class Stopped(RuntimeError):
    """The job saved its state and stops before its end; running the same command continues it."""


def settings(execution: dict) -> dict:
    """The ``execution.checkpoint`` block with its defaults: every_s (save at most this often, in seconds),
    every_steps (and at least every this many steps; None: by time only), budget_s (stop after this many seconds
    of training, saved; None: no budget)."""
    return {**DEFAULTS, **(execution.get("checkpoint") or {})}


def at_step(step: int, total: int | None) -> str:
    """"step k of n", or "step k" where n is not known ahead."""
    return f"step {step}" if total is None else f"step {step} of {total}"


def _digest_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(2**20), b""):
            digest.update(block)
    return digest.hexdigest()


def _named(path: str, root: Path) -> str:
    """An input's name in an identity: its path relative to `root` where it lies inside, else as given."""
    try:
        return Path(os.path.abspath(path)).relative_to(root).as_posix()
    except ValueError:
        return str(path)


def identity(rule: str, wildcards: dict, params: dict, inputs: list[str], root: Path | None = None) -> dict:
    """What a checkpoint belongs to: the rule, its wildcards, its params (as JSON) and each input file's sha256 (its
    tables and its code files alike). An input is named by its path relative to `root` (default: the current
    directory, where Snakemake runs a job: the workflow's root), so that a checkpoint carried to another copy of the
    workflow (another machine, the next GPU slot) belongs to the same job there."""
    root = Path(os.path.abspath(root or os.curdir))
    files = {_named(str(path), root): Path(path) for path in inputs if Path(path).is_file()}
    return {"rule": rule, "wildcards": {key: str(value) for key, value in sorted(wildcards.items())},
            "params": json.loads(json.dumps(params, sort_keys=True, default=repr)),
            "inputs": {name: _digest_file(files[name]) for name in sorted(files)}}


def differences(saved: dict, current: dict) -> list[str]:
    """What differs between two identities, in words."""
    found = [f"{key} differ" for key in ("rule", "wildcards", "params") if saved.get(key) != current.get(key)]
    saved_inputs, inputs = saved.get("inputs", {}), current.get("inputs", {})
    for path in sorted(saved_inputs.keys() | inputs.keys()):
        if saved_inputs.get(path) != inputs.get(path):
            found.append(f"input {path} " + ("changed" if path in saved_inputs and path in inputs else
                                             "is new" if path in inputs else "is gone"))
    return found


@dataclass
class Checkpoint:
    """One job's checkpoint file (`path`) and when to save to it; see the module's docstring."""

    path: Path
    identity: dict
    every_s: float | None = DEFAULTS["every_s"]
    every_steps: int | None = DEFAULTS["every_steps"]
    budget_s: float | None = DEFAULTS["budget_s"]
    log: logging.Logger = field(default_factory=lambda: logging.getLogger(__name__))

    def __post_init__(self):
        self.path = Path(self.path)
        self.started = self.last_save = time.monotonic()
        self.last_step: int | None = None
        self.stop_reason: str | None = None
        self.kind: str | None = None
        self._previous: dict = {}
        for number in SIGNALS:
            try:
                self._previous[number] = signal.signal(number, self._on_signal)
            except ValueError:  # not the main thread: no handler, the budget still applies
                break

    @classmethod
    def for_job(cls, snakemake, log: logging.Logger) -> "Checkpoint":
        """The checkpoint of a Snakemake job (its `snakemake` object), with the config's ``execution.checkpoint``."""
        first = Path(snakemake.output[0])
        found = settings(snakemake.config.get("execution", {}))
        params = {key: value for key, value in snakemake.params.items()}
        return cls(first.parent / f".{first.name}.checkpoint",
                   identity(snakemake.rule, dict(snakemake.wildcards.items()), params, list(snakemake.input)),
                   found["every_s"], found["every_steps"], found["budget_s"], log)

    def _on_signal(self, number, frame) -> None:
        self.stop_reason = f"{signal.Signals(number).name} received"

    def resume(self, kind: str | None = None) -> dict | None:
        """The saved state of this job, or None (no file, or a file of another job: refused, with the reason). `kind`
        names the loop that runs (e.g. "per-step loop on cpu"): a state saved by another kind is refused too, and
        `save` records this one."""
        self.kind = kind
        if not self.path.is_file():
            return None
        try:
            with open(self.path, "rb") as handle:
                payload = pickle.load(handle)  # a job's own file; tensors come back through torch's own reducers
        except Exception as error:  # a file that cannot be read is refused like a foreign one
            self.log.warning("checkpoint %s refused: it cannot be read (%s); starting from step 0", self.path, error)
            return None
        if payload.get("format") != FORMAT or payload.get("identity") != self.identity:
            reasons = differences(payload.get("identity", {}), self.identity) or ["its format differs"]
            self.log.warning("checkpoint %s refused: it belongs to another job (%s); starting from step 0",
                             self.path, "; ".join(reasons))
            return None
        if payload.get("kind") != kind:
            self.log.warning("checkpoint %s refused: it was saved by the %s, this job runs the %s; starting from step 0",
                             self.path, payload.get("kind") or "default loop", kind or "default loop")
            return None
        self.last_step = payload["step"]
        self.log.info("resuming from the checkpoint at %s (%s)", at_step(payload["step"], payload["total"]), self.path)
        return payload["state"]

    def due(self, step: int) -> bool:
        """Whether to save at `step`: a stop was asked (a signal, the budget spent) or an interval has passed."""
        now = time.monotonic()
        if self.stop_reason is None and self.budget_s is not None and now - self.started >= self.budget_s:
            self.stop_reason = f"the time budget of {self.budget_s:g} s (execution.checkpoint.budget_s) is spent"
        if self.stop_reason is not None:
            return True
        if self.every_steps is not None and step - (self.last_step or 0) >= self.every_steps:
            return True
        return self.every_s is not None and now - self.last_save >= self.every_s

    def save(self, step: int, total: int | None, state: dict) -> None:
        """Write `state` at `step` (of `total`, None: not known ahead) atomically, with the kind `resume` was given;
        raise `Stopped` afterwards if a stop was asked."""
        temporary = self.path.with_name(self.path.name + ".tmp")
        with open(temporary, "wb") as handle:
            pickle.dump({"format": FORMAT, "identity": self.identity, "kind": self.kind, "step": step, "total": total,
                         "state": state}, handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temporary, self.path)
        self.last_save, self.last_step = time.monotonic(), step
        self.log.info("checkpoint saved at %s (%s)", at_step(step, total), self.path)
        if self.stop_reason is not None:
            raise Stopped(f"checkpointed at {at_step(step, total)} ({self.stop_reason}); run the same command to continue")

    def finish(self) -> None:
        """The job is done: remove the checkpoint and put the signal handlers back."""
        self.path.unlink(missing_ok=True)
        self.path.with_name(self.path.name + ".tmp").unlink(missing_ok=True)
        self.close()

    def close(self) -> None:
        """Put the signal handlers back (the file stays)."""
        for number, handler in self._previous.items():
            signal.signal(number, handler)
        self._previous = {}


@contextlib.contextmanager
def job_checkpoint(snakemake, log: logging.Logger, run: str):
    """A Snakemake job's `Checkpoint` for the block inside: the block finishing removes it; a stop (`Stopped`) ends
    the job with its message, in the log too, naming `run`; any other error keeps it for the next run."""
    checkpoint = Checkpoint.for_job(snakemake, log)
    try:
        yield checkpoint
    except Stopped as stopped:
        checkpoint.close()
        log.error("%s: %s", run, stopped)
        sys.exit(f"{run}: {stopped}")
    except BaseException:
        checkpoint.close()
        raise
    checkpoint.finish()
