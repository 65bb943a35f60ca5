"""The in-context regression models of Wang et al. 2025 (Sec. 4.2.2, Table 5, App. C.2) and their training.

Three decoder-only (causal) models of the same width and head count, GPT-2 style: learned positional
embeddings, LayerNorm before each residual branch (pre-LN), a final LayerNorm, and Garg et al.'s
(2022) token embedding (x_i as itself in R^d, y_i as (y_i, 0, …, 0)) with a learned linear read-in to
the width D and a linear read-out to a scalar at every x position.

- `mssa`: attention-only; each layer is Z ← Z + W_O·MSSA(LN(Z)), the multi-head subspace
  self-attention of eq. (4) with a learned U_k per head shared by query, key and value, a softmax φ
  scaled by 1/√(D/heads) and a learned output projection W_O (eq. (5) with W_Q = W_K = W_V = U_k).
- `mhsa`: attention-only with standard multi-head self-attention (eq. (5)): separate W_Q, W_K, W_V, W_O.
- `transformer`: the GPT-2 block, attention as in `mhsa` then an MLP of width 4D with GELU.

The attention projections have no biases, so a layer has 2D² attention weights in `mssa`, 4D² in
`mhsa` and `transformer` (plus 8D² + 5D in the transformer's MLP), and 2D per LayerNorm. Table 5 uses
twice the transformer's layers for the attention-only models; `build_model` takes the layer count
as given. Training (Sec. 4.2.2): Adam on fresh prompts every step, the loss the mean over prompts and
prefixes of (ŷ_i − y_i)², with the gradient norm clipped (App. C.2).

`train_model` trains one of two ways, the same steps on the same prompts. On the CPU, `train_per_step`:
each step draws its batch (`sample_prompts`), runs in Python and reads its loss back. On a GPU, that
loop is bound by the host (Python, a few thousand kernel launches, the prompts, a sync for the loss),
not by the GPU, so `train_static` runs the step with Python off the hot path, on the loop the studies share
(`icdenoise.maths.graphs.StaticLoop`):
- the whole step (forward, backward, `clip_grad_norm_`, `Adam.step_with_factors`) is captured once as a
  `torch.cuda.CUDAGraph`, after `WARMUP_STEPS` eager steps on a side stream, and replayed; every tensor
  it reads or writes stays at one address: the parameters, Adam's moments, the gradients (allocated by
  the capture's backward, never set to None between replays), a step counter on the device;
- the step counter picks the step's Adam factors −lr/(1 − β1^t) and √(1 − β2^t) from a table computed
  beforehand in double (Algorithm 1's bias corrections, as `Adam.step` computes them), its batch from a
  device buffer of `CHUNK_STEPS` steps' prompts, and the slot its loss goes to in a device vector of
  every step's loss;
- worker processes (`regression.TrainingBatches`) draw the batches a few chunks ahead, each batch
  `sample_prompts`' own, and each chunk goes to the device buffer in one copy from pinned memory;
- the losses come to the host only at the recorded steps (every `record_every` and the last), where a
  loss that is not finite or over `DIVERGENCE_FACTOR` times the zero predictor's raises `TrainingDiverged`
  naming the first such step.
On the CPU `train_static` runs the same code eagerly (`capture=False`) and is bitwise `train_per_step`;
on a GPU the graph's multi-tensor Adam kernels round differently from `Adam.step`'s, so the two loops'
numbers agree to float32 rounding (icdenoise.studies.mssa.tools.step_bench compares them and times both).
"""

from __future__ import annotations

import logging
import math
import time

import numpy as np
import pandas as pd
import torch
from torch import nn
from torch.nn import functional as F

from icdenoise.maths.adam import Adam
from icdenoise.maths.graphs import StaticLoop, stage
from icdenoise.maths.runtime import resolve_device
from icdenoise.maths.training import DIVERGENCE_FACTOR, TrainingDiverged, progress
from icdenoise.studies.mssa.regression import TrainingBatches, default_workers, expected_squared_label, sample_prompts

ARCHITECTURES = ("mssa", "mhsa", "transformer")
CHUNK_STEPS = 32  # steps' batches drawn and copied to the device together (7 MB of prompts at the paper's scale)
INITIAL_STD = 0.02  # GPT-2's initialisation of its weight matrices and embeddings

module_log = logging.getLogger(__name__)


def causal_attention(queries: torch.Tensor, keys: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    """(B, H, N, p) each -> (B, H, N, p): position i averages the values of positions j ≤ i with
    weights softmax_j(q_i·k_j / √p).

    On the CPU torch's fused kernel (flash attention): it never stores the N × N weights, which makes
    a training step about 2.5 times faster than the written-out softmax on one CPU thread, and it is
    bitwise reproducible run to run (tests/unit/test_mssa_regression.py checks it against the
    written-out form, `written_out_causal_attention`). On a GPU, where torch's float32 kernel is more
    than half of a paper-scale step, `icdenoise.maths.small_attention`'s one program per head, for the
    lengths and widths it takes (imported only then: the CPU's jobs never load Triton)."""
    if queries.is_cuda:
        from icdenoise.maths import small_attention

        if small_attention.supports(queries):
            return small_attention.causal_attention(queries, keys, values)
    return F.scaled_dot_product_attention(queries, keys, values, is_causal=True)


def written_out_causal_attention(queries: torch.Tensor, keys: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    """`causal_attention` as the formula: softmax over j ≤ i of q_i·k_j / √p, applied to the values."""
    length, head_width = queries.shape[-2], queries.shape[-1]
    scores = queries @ keys.transpose(-2, -1) / math.sqrt(head_width)  # (B, H, N, N)
    future = torch.ones(length, length, dtype=torch.bool, device=queries.device).triu(1)
    return torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1) @ values


def split_heads(tokens: torch.Tensor, heads: int) -> torch.Tensor:
    """(B, N, D) -> (B, heads, N, D/heads)."""
    batch, length, width = tokens.shape
    return tokens.view(batch, length, heads, width // heads).transpose(1, 2)


def merge_heads(tokens: torch.Tensor) -> torch.Tensor:
    """(B, heads, N, p) -> (B, N, heads·p)."""
    batch, heads, length, head_width = tokens.shape
    return tokens.transpose(1, 2).reshape(batch, length, heads * head_width)


class SubspaceSelfAttention(nn.Module):
    """W_O · MSSA(Z), eq. (4) with a softmax, causal: head_k = U_kᵀZ · φ((U_kᵀZ)ᵀ(U_kᵀZ) / √p), p = D/heads.

    `subspaces.weight` is [U_1, …, U_K]ᵀ (D × D), so one product gives every head's U_kᵀz; with
    W_O = [U_1, …, U_K] the output is eq. (4)'s Σ_k U_k U_kᵀ Z φ(·) exactly.
    """

    def __init__(self, width: int, heads: int):
        super().__init__()
        self.heads = heads
        self.subspaces = nn.Linear(width, width, bias=False)
        self.output = nn.Linear(width, width, bias=False)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """(B, N, D) -> (B, N, D)."""
        projected = split_heads(self.subspaces(tokens), self.heads)  # (B, K, N, p): U_kᵀ z_j
        return self.output(merge_heads(causal_attention(projected, projected, projected)))


class MultiHeadSelfAttention(nn.Module):
    """W_O [head_1; …; head_K], head_k = W_Vᵀ Z φ(Zᵀ W_Q W_Kᵀ Z / √p), causal (eq. (5))."""

    def __init__(self, width: int, heads: int):
        super().__init__()
        self.heads = heads
        self.queries_keys_values = nn.Linear(width, 3 * width, bias=False)
        self.output = nn.Linear(width, width, bias=False)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """(B, N, D) -> (B, N, D)."""
        queries, keys, values = (split_heads(part, self.heads) for part in self.queries_keys_values(tokens).chunk(3, dim=-1))
        return self.output(merge_heads(causal_attention(queries, keys, values)))


class AttentionOnlyBlock(nn.Module):
    """One attention-only layer (Fig. 3, with LayerNorm): Z ← Z + attention(LN(Z)), eq. (3) with η absorbed in W_O."""

    residual_branches = 1

    def __init__(self, attention: nn.Module, width: int):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.attention = attention

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return tokens + self.attention(self.norm(tokens))


class TransformerBlock(nn.Module):
    """The GPT-2 block: Z ← Z + MHSA(LN(Z)), then Z ← Z + MLP(LN(Z)) with MLP = Linear(D, 4D), GELU, Linear(4D, D)."""

    residual_branches = 2

    def __init__(self, width: int, heads: int):
        super().__init__()
        self.attention_norm = nn.LayerNorm(width)
        self.attention = MultiHeadSelfAttention(width, heads)
        self.mlp_norm = nn.LayerNorm(width)
        self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(approximate="tanh"), nn.Linear(4 * width, width))

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        tokens = tokens + self.attention(self.attention_norm(tokens))
        return tokens + self.mlp(self.mlp_norm(tokens))


def make_block(architecture: str, width: int, heads: int) -> nn.Module:
    if architecture == "mssa":
        return AttentionOnlyBlock(SubspaceSelfAttention(width, heads), width)
    if architecture == "mhsa":
        return AttentionOnlyBlock(MultiHeadSelfAttention(width, heads), width)
    return TransformerBlock(width, heads)


class InContextRegressor(nn.Module):
    """A decoder-only model reading (x_1, y_1, …, x_k, y_k) and predicting y_i at the position of x_i."""

    def __init__(self, architecture: str, d: int, width: int, heads: int, layers: int, max_examples: int):
        super().__init__()
        self.architecture = architecture
        self.max_examples = max_examples
        self.read_in = nn.Linear(d, width)
        self.positions = nn.Parameter(torch.zeros(2 * max_examples, width))
        self.blocks = nn.ModuleList(make_block(architecture, width, heads) for _ in range(layers))
        self.final_norm = nn.LayerNorm(width)
        self.read_out = nn.Linear(width, 1)

    def initialise(self, generator: torch.Generator) -> None:
        """Garg et al.'s initialisation: inside the GPT-2 stack GPT-2's own (weights and positions
        N(0, 0.02²), biases 0, LayerNorm (1, 0), and N(0, (0.02/√R)²) for the projections that end a
        residual branch, R branches in all: 2·layers in GPT-2, layers in an attention-only model); the
        read-in and read-out, outside the stack, torch's default for a linear layer, U(±1/√fan_in).
        The read-in's scale matters: with GPT-2's 0.02 the inputs drown in the positional embeddings
        and in-context learning starts thousands of steps later."""
        branches = sum(block.residual_branches for block in self.blocks)
        branch_ends = {id(block.attention.output.weight) for block in self.blocks}
        branch_ends |= {id(block.mlp[2].weight) for block in self.blocks if isinstance(block, TransformerBlock)}
        with torch.no_grad():
            for layer in (self.read_in, self.read_out):
                bound = 1 / math.sqrt(layer.in_features)
                nn.init.uniform_(layer.weight, -bound, bound, generator=generator)
                nn.init.uniform_(layer.bias, -bound, bound, generator=generator)
            for name, parameter in self.named_parameters():
                if name.startswith(("read_in.", "read_out.")):
                    continue
                if id(parameter) in branch_ends:
                    nn.init.normal_(parameter, 0.0, INITIAL_STD / math.sqrt(branches), generator=generator)
                elif "norm" in name:
                    parameter.fill_(1.0 if name.endswith("weight") else 0.0)
                elif name.endswith("bias"):
                    parameter.zero_()
                else:
                    nn.init.normal_(parameter, 0.0, INITIAL_STD, generator=generator)

    def forward(self, xs: torch.Tensor, ys: torch.Tensor) -> torch.Tensor:
        """xs (B, k, d), ys (B, k) -> (B, k): the prediction at each x position."""
        batch, examples, d = xs.shape
        if examples > self.max_examples:
            raise ValueError(f"prompts of {examples} examples exceed the model's {self.max_examples}")
        labels = F.pad(ys[..., None], (0, d - 1))  # (B, k, d): y_i as (y_i, 0, …, 0)
        sequence = torch.stack([xs, labels], dim=2).reshape(batch, 2 * examples, d)  # x_1, y_1, x_2, …
        tokens = self.read_in(sequence) + self.positions[: 2 * examples]  # (B, 2k, D)
        for block in self.blocks:
            tokens = block(tokens)
        return self.read_out(self.final_norm(tokens[:, ::2]))[..., 0]


def build_model(architecture: str, d: int, width: int, heads: int, layers: int, max_examples: int, seed: int) -> torch.nn.Module:
    """A model of Table 5's kind, initialised from `seed` (its own stream, apart from the prompts')."""
    if architecture not in ARCHITECTURES:
        raise ValueError(f"architecture must be one of {ARCHITECTURES}, got {architecture!r}")
    if width % heads:
        raise ValueError(f"width {width} is not a multiple of heads {heads}")
    model = InContextRegressor(architecture, d, width, heads, layers, max_examples).to(torch.float32)  # whatever the default dtype
    initial_state = np.random.SeedSequence(seed).spawn(1)[0].generate_state(1, np.uint64)[0]
    model.initialise(torch.Generator().manual_seed(int(initial_state)))
    return model


def device_description(device: torch.device | str) -> str:
    """The device a job trained on, as its tables' provenance records it (a ledger row's `built from`): its
    type, and for a GPU the GPU's name, e.g. ``cuda (NVIDIA H100 80GB HBM3)`` or ``cpu``."""
    device = torch.device(device)
    if device.type != "cuda":
        return device.type
    return f"cuda ({torch.cuda.get_device_name(device)})"


def parameter_count(model) -> int:
    return sum(parameter.numel() for parameter in model.parameters())


def regression_loss(model, xs: torch.Tensor, ys: torch.Tensor) -> torch.Tensor:
    """Mean over prompts and prefixes i = 1..k of (ŷ_i − y_i)² (Sec. 4.2.2's objective)."""
    return ((model(xs, ys) - ys) ** 2).mean()


def training_step(model, optimiser: Adam, xs: torch.Tensor, ys: torch.Tensor, clip: float) -> float:
    """One Adam step on one batch, gradient norm clipped to `clip`; returns the batch loss before the step."""
    optimiser.zero_grad()
    loss = regression_loss(model, xs, ys)
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), clip)
    optimiser.step()
    return loss.item()


def train_model(model, task: str, d: int, nonzeros: int, examples: int, steps: int, batch: int, learning_rate: float, clip: float, seed: int, record_every: int, device: str = "cpu", log: logging.Logger | None = None, checkpoint=None) -> pd.DataFrame:
    """Trains in place; returns the training curve: columns step, loss (batch mean, per-token), normalized_loss.

    Step t trains on prompts t·batch … (t+1)·batch − 1 of `seed` (`sample_prompts`), fresh every step.
    A row is step t's batch loss before its update, for t = 0, record_every, … and the last step;
    normalized_loss divides it by E[y²]. `log` (default: this module's logger) gets one INFO line per
    recorded step. `device`: cpu, cuda or auto (`runtime.resolve_device`). On a GPU the steps are one
    replayed CUDA graph (`train_static`), on the CPU one Python step after another (`train_per_step`).
    `checkpoint` (an icdenoise.pipeline.checkpoints.Checkpoint, or None): the run continues from its saved state
    (the parameters, Adam's state, the step and the curve so far: every step's prompts follow from the seed and
    the step) and saves when it is due, with the numbers of a run that never stopped.
    """
    target = resolve_device(device)
    loop = train_static if target.type == "cuda" else train_per_step
    return loop(model, task, d, nonzeros, examples, steps, batch, learning_rate, clip, seed, record_every, device=str(target), log=log,
                checkpoint=checkpoint)


def diverged(loss: float, normaliser: float) -> bool:
    """Whether a batch loss is not finite or over `DIVERGENCE_FACTOR` times E[y²], the zero predictor's expected loss
    (the training's own rule, icdenoise.maths.training; a healthy run's normalized loss starts near 1)."""
    return not math.isfinite(loss) or loss > DIVERGENCE_FACTOR * normaliser


def record(rows: list, loss: float, step: int, normaliser: float, model, task: str, seed: int, clock: tuple[float, int, int], log: logging.Logger | None) -> None:
    """Step `step`'s row of the curve and its log line, with the steps a second and the time left (`clock`: when this
    process started training, at which step, and the run's steps); a loss that has `diverged` raises
    `TrainingDiverged` instead."""
    if diverged(loss, normaliser):
        raise TrainingDiverged(f"{model.architecture} on {task}, seed {seed}: loss {loss:.4g} at step {step}, not finite or "
                               f"over {DIVERGENCE_FACTOR:g} times the zero predictor's {normaliser:.4g}", step=step, loss=loss)
    rows.append({"step": step, "loss": loss, "normalized_loss": loss / normaliser})
    started, first, steps = clock
    elapsed = time.perf_counter() - started
    (log or module_log).info("%s %s %s: normalized loss %.4f (%.1f s)", model.architecture, task,
                             progress(step, first, steps, elapsed), loss / normaliser, elapsed)


def train_per_step(model, task: str, d: int, nonzeros: int, examples: int, steps: int, batch: int, learning_rate: float, clip: float, seed: int, record_every: int, device: str = "cpu", log: logging.Logger | None = None, checkpoint=None) -> pd.DataFrame:
    """`train_model` one Python step after another: each step draws its prompts on the CPU, copies them to
    the device and reads its loss back (`training_step`), raising `TrainingDiverged` at the first loss that
    has `diverged`; `checkpoint` as in `train_model`, saved before any step."""
    target = resolve_device(device)
    model.to(target).train()
    optimiser = Adam(model.parameters(), lr=learning_rate)
    normaliser = expected_squared_label(task, d, nonzeros)
    rows, first = [], 0
    saved = checkpoint.resume(f"per-step loop on {target.type}") if checkpoint is not None else None
    if saved is not None:
        rows, first = _restore(saved, model, optimiser)
    clock = (time.perf_counter(), first, steps)
    for step in range(first, steps):
        if checkpoint is not None and step > first and checkpoint.due(step):
            checkpoint.save(step, steps, _state(model, optimiser, rows, step))
        xs, ys = sample_prompts(task, d, nonzeros, batch, examples, seed, start=step * batch)
        loss = training_step(model, optimiser, xs.to(target), ys.to(target), clip)
        if diverged(loss, normaliser) or step % record_every == 0 or step == steps - 1:
            record(rows, loss, step, normaliser, model, task, seed, clock, log)
    return pd.DataFrame(rows)


def _state(model, optimiser: Adam, rows: list, step: int, **extra) -> dict:
    """A checkpoint's state of `train_per_step` and `train_static` before `step`."""
    return {"model": {name: value.detach().cpu().clone() for name, value in model.state_dict().items()},
            "optimiser": optimiser.state(), "rows": [dict(row) for row in rows], "step": step, **extra}


def _restore(saved: dict, model, optimiser: Adam) -> tuple[list, int]:
    """Put a checkpoint's parameters and Adam's state back (in place); its curve so far and its step."""
    model.load_state_dict(saved["model"])
    optimiser.load_state(saved["optimiser"])
    return [dict(row) for row in saved["rows"]], saved["step"]


def train_static(model, task: str, d: int, nonzeros: int, examples: int, steps: int, batch: int, learning_rate: float, clip: float, seed: int, record_every: int, device: str = "cpu", log: logging.Logger | None = None, *, capture: bool | None = None, workers: int | None = None, chunk_steps: int = CHUNK_STEPS, checkpoint=None) -> pd.DataFrame:
    """`train_model` with every tensor of a step at a fixed address, so the step can be one CUDA graph.

    The step (`regression_loss`, its gradient, the norm clipping and `Adam.step_with_factors`) reads its
    prompts from a device buffer of `chunk_steps` steps' batches, at slot (step mod chunk_steps), and
    its Adam factors from a table (`Adam.step_factors`), both by a step counter on the device that the
    step advances, and writes its loss into a device buffer of every step's loss. `capture` (default:
    on a GPU) runs the first `WARMUP_STEPS` steps as they are on a side stream, then captures the next
    in a `torch.cuda.CUDAGraph` and replays it for the rest; without it each step runs eagerly, the
    same code. The batches come from `TrainingBatches` (`workers` processes, default
    `regression.default_workers()` on a GPU and none on the CPU), a chunk copied to the device buffer
    (through pinned memory on a GPU) whenever the steps reach it. The losses are read back only at
    the recorded steps: there `TrainingDiverged` names the first step since the last record whose loss
    has `diverged`, as `train_per_step` would have named it. `checkpoint` as in `train_model`, saved at the start
    of a chunk; a run continued from one captures its graph `WARMUP_STEPS` steps after where it continued. Each loop
    continues only its own checkpoints, on the same kind of device (`Checkpoint.resume`'s kind).
    """
    target = resolve_device(device)
    capture = target.type == "cuda" if capture is None else capture
    loop = StaticLoop(steps, chunk_steps, target, capture)
    workers = (default_workers() if target.type == "cuda" else 0) if workers is None else workers
    model.to(target).train()
    optimiser = Adam(model.parameters(), lr=learning_rate)
    normaliser = expected_squared_label(task, d, nonzeros)
    staged_xs, staged_ys = loop.buffer(batch, examples, d), loop.buffer(batch, examples)
    factors = optimiser.step_factors(steps)
    losses = loop.vector()

    def step_in_place() -> None:
        optimiser.zero_grad()
        loss = regression_loss(model, loop.batch(staged_xs), loop.batch(staged_ys))
        loop.write(losses, loss)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimiser.step_with_factors(loop.row(factors))
        loop.advance()

    rows, first, recorded_until = [], 0, 0
    saved = checkpoint.resume(f"static loop on {target.type}") if checkpoint is not None else None
    if saved is not None:
        rows, first = _restore(saved, model, optimiser)
        recorded_until = saved["recorded_until"]
        losses[:first].copy_(saved["losses"])
        loop.counter.fill_(first)
    clock = (time.perf_counter(), first, steps)

    def state(step: int) -> dict:
        return _state(model, optimiser, rows, step, recorded_until=recorded_until, losses=losses[:step].cpu().clone())

    def record_since_last(step: int) -> None:
        nonlocal recorded_until
        if step % record_every == 0 or step == steps - 1:
            since_record = losses[recorded_until : step + 1].tolist()
            for offset, loss in enumerate(since_record):
                if diverged(loss, normaliser):
                    record(rows, loss, recorded_until + offset, normaliser, model, task, seed, clock, log)
            record(rows, since_record[-1], step, normaliser, model, task, seed, clock, log)
            recorded_until = step + 1

    with TrainingBatches(task, d, nonzeros, batch, examples, seed, steps, loop.chunk_steps, workers,
                         start=first) as batches:
        chunks = iter(batches)

        def load(step: int, count: int) -> None:
            _, xs, ys = next(chunks)
            stage(staged_xs, torch.from_numpy(xs))
            stage(staged_ys, torch.from_numpy(ys))

        loop.run(step_in_place, first, load, after=record_since_last, checkpoint=checkpoint, state=state)
    return pd.DataFrame(rows)


@torch.no_grad()
def predict(model, xs, ys, chunk: int = 256) -> np.ndarray:
    """(n_prompts, examples) float32: the model's prediction at every x position, `chunk` prompts at a time."""
    was_training = model.training
    model.eval()
    device = next(model.parameters()).device
    xs, ys = torch.as_tensor(xs, dtype=torch.float32), torch.as_tensor(ys, dtype=torch.float32)
    parts = [model(xs[i : i + chunk].to(device), ys[i : i + chunk].to(device)).cpu() for i in range(0, len(xs), chunk)]
    model.train(was_training)
    return torch.cat(parts).numpy()
