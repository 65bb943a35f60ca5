"""Slide 20's training runs: exactly `steps` updates of the trained matrices with Adam or SGD on fresh
batches (a step budget registered with the claims, so that no verdict hangs on where a loss-triggered stop
would fire on one machine), the loss on the deterministic output tokens only, and a row of test loss,
accuracy and probes every `record_every` steps.

`train_run` trains one of two ways, on the same batches from the same weights. On the CPU, the loop as
written: each step draws its batch, computes the loss at the output positions only (`output_loss_and_hits`,
whose shapes depend on the batch) and reads it back. On a GPU that loop is bound by kernel launches and
read-backs, not by the GPU, so `train_static` keeps Python off the hot path, on the loop the studies share
(`icdenoise.maths.graphs.StaticLoop`: buffers at fixed addresses, a step counter on the device, chunks of batches
staged from the host, the step captured once as a `torch.cuda.CUDAGraph` after `WARMUP_STEPS` eager steps and
replayed). What is this study's own:
- every shape is fixed: the loss is `masked_output_loss` (the logits at every position, the cross-entropy
  averaged over the output positions by a mask), equal to `output_loss_and_hits`' up to float32 rounding;
- the batches are drawn on the host as the loop draws them, `CHUNK_STEPS` steps at a time; the step counter
  picks the step's batch, its Adam factors (`Adam.step_factors`) and the slot its loss and output count go to;
- each record (test loss and accuracy on the whole test set at once, the probes) is written into a device
  table, and everything comes back to the host once, at the end;
- it runs under torch's deterministic algorithms (`maths.graphs.deterministic_algorithms`): without them no two
  GPU runs of the same config and seed were equal (final accuracies 0.9925 to 1.0000 for one run, 2026-11-27), with
  them every run was the same bits, within and across processes (icdenoise.studies.memory.tools.gpu_determinism,
  docs/reproducibility.md).
`train_static(capture=False)` runs the same code eagerly on any device (the unit tests' CPU check)."""

from __future__ import annotations

import contextlib
from typing import NamedTuple

import numpy as np
import pandas as pd
import torch

from icdenoise.maths.adam import Adam
from icdenoise.maths.graphs import StaticLoop, deterministic_algorithms, stage
from icdenoise.maths.sgd import HeavyBallSGD
from icdenoise.studies.memory.embeddings import generator
from icdenoise.studies.memory.divergence import check_losses
from icdenoise.studies.memory.induction.model import (
    NO_OUTPUTS,
    AttentionOnlyTransformer,
    frozen_embeddings,
    masked_output_loss,
    output_loss_and_hits,
)
from icdenoise.studies.memory.induction.probes import probe_targets, probe_tensors, probes
from icdenoise.studies.memory.induction.task import TriggerBigrams, block_task

TEST_SET, BATCHES, INITIAL_WEIGHTS = 3, 4, 5  # purpose codes of a run's generators (1: embeddings, 2: bigrams)
CHUNK_STEPS = 100  # steps' batches drawn and copied to the device together (3.3 MB at the config's sizes)


def make_optimizer(name: str, options: dict, parameters):
    """The configured optimiser: `adam` {learning_rate} (default betas and eps) or `sgd` {learning_rate, momentum}
    (heavy ball), each bitwise torch.optim's (maths.adam, maths.sgd) without torch.optim's second of start-up."""
    if name == "adam":
        return Adam(parameters, lr=options["learning_rate"])
    if name == "sgd":
        return HeavyBallSGD(parameters, lr=options["learning_rate"], momentum=options.get("momentum", 0.0))
    raise ValueError(f"unknown optimizer {name!r}; allowed: adam, sgd")


@torch.no_grad()
def evaluate(model: AttentionOnlyTransformer, test_tokens: torch.Tensor, triggers: torch.Tensor,
             chunk: int = 64) -> tuple[float, float]:
    """Test cross-entropy and accuracy over every output position of the test sequences, in chunks of sequences."""
    total_loss, total_hits, total_count = 0.0, 0, 0
    for start in range(0, len(test_tokens), chunk):
        loss, hits, count = output_loss_and_hits(model, test_tokens[start:start + chunk], triggers)
        total_loss += float(loss) * count
        total_hits += int(hits)
        total_count += count
    return total_loss / total_count, total_hits / total_count


class Run(NamedTuple):
    """What a run trains on and with: the task and model, the probes' targets, the test set, the batches'
    generator and the optimiser."""

    task: TriggerBigrams
    model: AttentionOnlyTransformer
    triggers: torch.Tensor
    targets: dict
    test_tokens: torch.Tensor
    batches: torch.Generator
    updates: object


def prepare(block: dict, task: TriggerBigrams, layers: int, optimizer: str, seed: int, device: torch.device) -> Run:
    """The run on the block's `task`: its embeddings from `block["seed"]`, its initial weights and batches from
    `seed`, on `device`."""
    if optimizer not in block["optimizers"]:
        raise ValueError(f"optimizer {optimizer!r} is not configured; configured: {', '.join(block['optimizers'])}")
    embeddings = frozen_embeddings(block)
    triggers = task.triggers.to(device)
    model = AttentionOnlyTransformer(embeddings, layers, generator(seed, INITIAL_WEIGHTS, block["d"])).to(device)
    targets = probe_targets(embeddings.to(device), task)
    test_tokens, _ = task.sample(generator(block["seed"], TEST_SET), block["test_sequences"], block["length"] + 1)
    return Run(task, model, triggers, targets, test_tokens.to(device), generator(seed, BATCHES),
               make_optimizer(optimizer, block["optimizers"][optimizer], model.trained.values()))


def with_block_keys(rows: list[dict], block: dict) -> pd.DataFrame:
    """The rows as a table, with the block's task sizes as columns."""
    curves = pd.DataFrame(rows)
    for key in ("vocabulary", "triggers", "length", "d"):
        curves[key] = block[key]
    return curves


def run_name(layers: int, optimizer: str, seed: int) -> str:
    return f"induction head, {layers} layer{'s' if layers > 1 else ''}, {optimizer}, seed {seed}"


def saved_state(run: Run, step: int, **records) -> dict:
    """A checkpoint's state of a run before `step`: the model's tensors, the optimiser's state, the batches'
    generator (the only one the rest of the run draws from: the test set and the initial weights come from their
    own seeds) and the loop's records so far (`records`)."""
    return {"model": {name: value.detach().cpu().clone() for name, value in run.model.state_dict().items()},
            "optimizer": run.updates.state(), "batches": run.batches.get_state(), "step": step, **records}


def restore(run: Run, saved: dict) -> int:
    """Put a checkpoint's model, optimiser and batches' generator back into `run` (in place: the optimiser keeps
    the model's tensors); its step."""
    run.model.load_state_dict(saved["model"])
    run.updates.load_state(saved["optimizer"])
    run.batches.set_state(saved["batches"])
    return saved["step"]


def train_run(block: dict, layers: int, optimizer: str, seed: int, device: torch.device,
              bigrams: pd.DataFrame | None = None, checkpoint=None) -> pd.DataFrame:
    """One training run of slide 20's experiment: exactly `block["steps"]` updates of the trained matrices on
    fresh batches, with the loss on the output tokens after a trigger's second and later occurrences. Every
    `record_every` steps (and at the last), one row: test loss and accuracy on `test_sequences` sequences drawn
    from the block's seed, and the probes. The task and embeddings come from `block["seed"]`; the batches and the
    initial weights from `seed`. The task is the block's synthetic chain, or, given `bigrams` (the table of
    `corpus.estimate_bigrams`), the chain on that π_b (`task.block_task`). A batch loss that has diverged
    (`divergence.check_losses`) raises `TrainingDiverged` at its step. On a CUDA device, `train_static`.

    `checkpoint` (an icdenoise.pipeline.checkpoints.Checkpoint, or None): the run continues from its saved state
    (`saved_state`) and saves before any step when it is due, with the numbers of a run that never stopped."""
    if device.type == "cuda":
        return train_static(block, layers, optimizer, seed, device, bigrams=bigrams, checkpoint=checkpoint)
    block, task = block_task(block, bigrams)
    run = prepare(block, task, layers, optimizer, seed, device)
    task, model, triggers, targets, test_tokens, batches, updates = run
    rows, train_losses, first = [], [], 0
    saved = checkpoint.resume(f"per-step loop on {device.type}") if checkpoint is not None else None
    if saved is not None:
        first = restore(run, saved)
        rows, train_losses = [dict(row) for row in saved["rows"]], list(saved["train_losses"])
    for step in range(first, block["steps"] + 1):
        if checkpoint is not None and first < step < block["steps"] and checkpoint.due(step):
            checkpoint.save(step, block["steps"], saved_state(run, step, rows=[dict(row) for row in rows],
                                                              train_losses=list(train_losses)))
        if step % block["record_every"] == 0 or step == block["steps"]:
            loss, accuracy = evaluate(model, test_tokens, triggers)
            rows.append({"step": step, "layers": layers, "optimizer": optimizer, "seed": seed, "loss": loss,
                         "accuracy": accuracy, "train_loss": float(np.mean(train_losses)) if train_losses else np.nan,
                         **probes(model, targets)})
            train_losses = []
        if step == block["steps"]:
            break
        tokens, _ = task.sample(batches, block["batch"], block["length"] + 1)
        loss, _, _ = output_loss_and_hits(model, tokens.to(device), triggers)
        check_losses([loss.detach()], block["vocabulary"], run_name(layers, optimizer, seed), first_step=step)
        updates.zero_grad()
        loss.backward()
        updates.step()
        train_losses.append(float(loss.detach()))
    return with_block_keys(rows, block)


def train_static(block: dict, layers: int, optimizer: str, seed: int, device: torch.device, *,
                 capture: bool | None = None, chunk_steps: int = CHUNK_STEPS, bigrams: pd.DataFrame | None = None,
                 checkpoint=None) -> pd.DataFrame:
    """`train_run` with every tensor of a step at a fixed address, so that the step can be one CUDA graph (the
    module's docstring). The same batches, initial weights, test set, records and columns as `train_run`; the
    losses differ from its by float32 rounding (`masked_output_loss`, and the test set evaluated at once rather
    than in chunks). `capture` (default: on a GPU) replays a captured graph after `WARMUP_STEPS` eager steps;
    without it every step runs eagerly, the same code. Nothing is read back to the host before the last step; then a
    batch loss that has diverged raises `TrainingDiverged` at the first such step, as `train_run` would. On a CUDA
    device it runs under `deterministic_algorithms`. `bigrams` as in `train_run`. `checkpoint` as in `train_run`,
    saved at the start of a chunk (the losses, output counts and records so far read back then). A run continued
    past the warm-up warms up on `WARMUP_STEPS` steps whose effects it undoes, then captures, so that it replays the
    graph at the steps where a run that never stopped does. It continues only its own checkpoints, on the same kind
    of device."""
    capture = device.type == "cuda" if capture is None else capture
    if capture and device.type != "cuda":
        raise ValueError(f"a CUDA graph needs a CUDA device, got {device}")
    with deterministic_algorithms() if device.type == "cuda" else contextlib.nullcontext():
        return static_run(block, layers, optimizer, seed, device, capture, chunk_steps, bigrams, checkpoint)


def static_run(block: dict, layers: int, optimizer: str, seed: int, device: torch.device, capture: bool,
               chunk_steps: int, bigrams: pd.DataFrame | None = None, checkpoint=None) -> pd.DataFrame:
    """`train_static`'s run, on the device and in the mode it chose: its step, batches and records on a
    `maths.graphs.StaticLoop`."""
    block, task = block_task(block, bigrams)
    run = prepare(block, task, layers, optimizer, seed, device)
    task, model, triggers, targets, test_tokens, batches, updates = run
    steps, every = block["steps"], block["record_every"]
    recorded = [step for step in range(steps + 1) if step % every == 0 or step == steps]
    loop = StaticLoop(steps, chunk_steps, device, capture)
    staged = loop.buffer(block["batch"], block["length"] + 1, dtype=torch.int64)
    train_losses, counts = loop.vector(), loop.vector(0.0)
    factors = updates.step_factors(steps) if isinstance(updates, Adam) else None
    columns = ["loss", "accuracy", *probe_tensors(model, targets)]
    records = torch.full((len(recorded), len(columns)), float("nan"), dtype=torch.float32, device=device)

    def step_in_place() -> None:
        updates.zero_grad()
        loss, _, count = masked_output_loss(model, loop.batch(staged), triggers)
        loop.write(train_losses, loss)
        loop.write(counts, count)
        loss.backward()
        if factors is None:
            updates.step()
        else:
            updates.step_with_factors(loop.row(factors))
        loop.advance()

    @torch.no_grad()
    def record_in_place(step: int) -> None:
        if step in recorded:
            loss, hits, count = masked_output_loss(model, test_tokens, triggers)
            records[recorded.index(step)] = torch.stack([loss, hits / count, *probe_tensors(model, targets).values()])

    def load(step: int, count: int) -> None:
        stage(staged, torch.stack([task.sample(batches, block["batch"], block["length"] + 1)[0] for _ in range(count)]))

    def state(step: int) -> dict:
        return saved_state(run, step, train_losses=train_losses[:step].cpu().clone(), counts=counts[:step].cpu().clone(),
                           records=records.cpu().clone())

    def rewind() -> None:
        model.load_state_dict(saved["model"])
        updates.load_state(saved["optimizer"])

    def finish() -> tuple[bool, np.ndarray, np.ndarray]:
        record_in_place(steps)
        outputs_everywhere = bool((counts > 0).all())  # read back on the stream that wrote them, after its last step
        return outputs_everywhere, train_losses.cpu().numpy(), records.cpu().numpy()

    first = 0
    saved = checkpoint.resume(f"static loop on {device.type}") if checkpoint is not None else None
    if saved is not None:
        first = restore(run, saved)  # the factors' table stays: Adam's step count does not move in this loop
        train_losses[:first].copy_(saved["train_losses"])
        counts[:first].copy_(saved["counts"])
        records.copy_(saved["records"])
        loop.counter.fill_(first)
    outputs_everywhere, losses, table = loop.run(step_in_place, first, load, before=record_in_place,
                                                 checkpoint=checkpoint, state=state, rewind=rewind, finish=finish)
    if not outputs_everywhere:
        raise ValueError(NO_OUTPUTS)
    check_losses(losses, block["vocabulary"], run_name(layers, optimizer, seed))
    rows = []
    for row, step in enumerate(recorded):
        since = losses[recorded[row - 1] if row else 0 : step]
        values = dict(zip(columns, map(float, table[row])))
        rows.append({"step": step, "layers": layers, "optimizer": optimizer, "seed": seed, "loss": values.pop("loss"),
                     "accuracy": values.pop("accuracy"),
                     "train_loss": float(np.mean([float(loss) for loss in since])) if len(since) else np.nan, **values})
    return with_block_keys(rows, block)
