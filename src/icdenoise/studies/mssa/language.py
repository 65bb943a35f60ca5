"""Causal character-level language models of Wang et al. 2025 (Sec. 4.2.1, Fig. 5, Tables 3-4), scaled, and their
training with AdamW.

Three decoder-only models, GPT-2 style (nanoGPT's layout): a token embedding, learned positional embeddings, a stack
of pre-LN blocks, a final LayerNorm and a read-out tied to the token embedding (so the embedding counts once, as in
Table 4's counts). The blocks are the regression study's (`transformers.make_block`):
- `mssa`: AoT-MSSA-L, attention only: Z ← Z + W_O·MSSA(LN(Z)), causal MSSA (eq. 4) with W_Q = W_K = W_V = U_k;
- `mhsa`: AoT-MHSA-L, attention only, causal multi-head self-attention (eq. 5);
- `transformer`: GPT-2's block, attention then an MLP of width 4D with GELU.

Table 4 gives the attention-only models twice the transformer's layers and a wider embedding so that the parameter
counts match (GPT-2 Base 124M, 12 layers, width 768; AoT-MHSA-L Base 122M, 24 layers, 896; AoT-MSSA-L Base 102M, 24
layers, 1024). `matched_width` does the same here: the width, a multiple of the head width, whose total count
(`closed_form_parameters`) is nearest the transformer's. The head width is the same for every model (Table 4: 64,
with 12, 14 and 16 heads).

Training (Sec. 4.2.1: AdamW, Loshchilov & Hutter 2019): `AdamW` on the mean next-character cross-entropy of each
batch, weight decay on the matrices and embeddings only (nanoGPT's groups), the learning rate warmed up linearly and
then decayed on a cosine to `final_lr_fraction` of its peak (`learning_rate_at`, nanoGPT's schedule), the gradient
norm clipped. `train_language_model` records, every `record_every` steps and at the last, the mean training loss of
the steps since the last record and the loss on the fixed held-out windows; it continues from a checkpoint
(icdenoise.pipeline.checkpoints) with the numbers of a run that never stopped.
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
from icdenoise.maths.training import TrainingDiverged, progress
from icdenoise.studies.mssa.language_corpus import LanguageCorpus, training_windows, unigram_loss, validation_windows
from icdenoise.studies.mssa.transformers import ARCHITECTURES, INITIAL_STD, TransformerBlock, make_block, parameter_count

INITIALISATION = 1  # purpose code of a model's initial weights: SeedSequence([seed, INITIALISATION])
MAX_HEADS = 64  # the widest width `matched_width` considers, in head widths
EVALUATION_CHUNK = 256  # held-out windows per forward pass
# Table 4: the OpenWebText models each architecture stands for (the Base sizes, which match GPT-2 Base's count)
TABLE4 = {"mssa": {"table4_model": "AoT-MSSA-L Base", "table4_parameters": 102e6, "table4_layers": 24, "table4_width": 1024},
          "mhsa": {"table4_model": "AoT-MHSA-L Base", "table4_parameters": 122e6, "table4_layers": 24, "table4_width": 896},
          "transformer": {"table4_model": "GPT-2 Base", "table4_parameters": 124e6, "table4_layers": 12, "table4_width": 768}}

module_log = logging.getLogger(__name__)


def closed_form_parameters(architecture: str, layers: int, width: int, vocabulary: int, context: int) -> int:
    """The parameter count of `CharacterModel`, written out: tied token embedding V·D, positions T·D, final LayerNorm
    2D, and per layer 2D² + 2D (`mssa`: U and W_O, one LayerNorm), 4D² + 2D (`mhsa`: W_Q, W_K, W_V, W_O) or
    12D² + 9D (`transformer`: 4D² of attention, two LayerNorms, the MLP's 8D² weights and 5D biases)."""
    per_layer = {"mssa": 2 * width**2 + 2 * width, "mhsa": 4 * width**2 + 2 * width, "transformer": 12 * width**2 + 9 * width}
    return (vocabulary + context + 2) * width + layers * per_layer[architecture]


def matched_width(architecture: str, layers: int, target: int, head_width: int, vocabulary: int, context: int) -> int:
    """The multiple of `head_width` (1 to MAX_HEADS heads) whose `closed_form_parameters` is nearest `target`, the
    smaller on a tie: Table 4's rule for the attention-only models' wider embedding."""
    widths = range(head_width, MAX_HEADS * head_width + 1, head_width)
    return min(widths, key=lambda width: (abs(closed_form_parameters(architecture, layers, width, vocabulary, context) - target), width))


def model_sizes(block: dict, vocabulary: int) -> dict[str, dict]:
    """Architecture → its layers, width and heads: the transformer's as configured, each attention-only model's width
    matched to the transformer's count (`matched_width`)."""
    models, head_width, context = block["models"], block["head_width"], block["context"]
    reference = models["transformer"]
    target = closed_form_parameters("transformer", reference["layers"], reference["width"], vocabulary, context)
    sizes = {}
    for architecture, settings in models.items():
        width = settings.get("width") or matched_width(architecture, settings["layers"], target, head_width, vocabulary, context)
        sizes[architecture] = {"layers": settings["layers"], "width": width, "heads": width // head_width}
    return sizes


class CharacterModel(nn.Module):
    """Codes (B, N) → next-character logits (B, N, V), causal: position i sees positions ≤ i only."""

    def __init__(self, architecture: str, vocabulary: int, context: int, width: int, heads: int, layers: int):
        super().__init__()
        self.architecture = architecture
        self.context = context
        self.tokens = nn.Embedding(vocabulary, width)
        self.positions = nn.Parameter(torch.zeros(context, width))
        self.blocks = nn.ModuleList(make_block(architecture, width, heads) for _ in range(layers))
        self.final_norm = nn.LayerNorm(width)

    def initialise(self, generator: torch.Generator) -> None:
        """GPT-2's initialisation (nanoGPT): weights, token and position embeddings N(0, 0.02²), biases 0, LayerNorm
        (1, 0), and N(0, (0.02/√R)²) for the projections that end a residual branch, R branches in all (2 per layer
        in the transformer, 1 in an attention-only model)."""
        branches = sum(block.residual_branches for block in self.blocks)
        branch_ends = {id(block.attention.output.weight) for block in self.blocks}
        branch_ends |= {id(block.mlp[2].weight) for block in self.blocks if isinstance(block, TransformerBlock)}
        with torch.no_grad():
            for name, parameter in self.named_parameters():
                if id(parameter) in branch_ends:
                    nn.init.normal_(parameter, 0.0, INITIAL_STD / math.sqrt(branches), generator=generator)
                elif "norm" in name:
                    parameter.fill_(1.0 if name.endswith("weight") else 0.0)
                elif name.endswith("bias"):
                    parameter.zero_()
                else:
                    nn.init.normal_(parameter, 0.0, INITIAL_STD, generator=generator)

    def forward(self, codes: torch.Tensor) -> torch.Tensor:
        length = codes.shape[1]
        if length > self.context:
            raise ValueError(f"{length} characters exceed the model's context of {self.context}")
        tokens = self.tokens(codes) + self.positions[:length]  # (B, N, D)
        for block in self.blocks:
            tokens = block(tokens)
        return self.final_norm(tokens) @ self.tokens.weight.T  # (B, N, V): the read-out tied to the embedding

    def has_mlp(self) -> bool:
        return any(isinstance(module, nn.GELU) for module in self.modules())


def build_language_model(architecture: str, vocabulary: int, context: int, width: int, heads: int, layers: int, seed: int) -> CharacterModel:
    """A model of Table 4's kind, initialised from `seed` (its own stream, SeedSequence([seed, INITIALISATION]))."""
    if architecture not in ARCHITECTURES:
        raise ValueError(f"architecture must be one of {ARCHITECTURES}, got {architecture!r}")
    if width % heads:
        raise ValueError(f"width {width} is not a multiple of heads {heads}")
    model = CharacterModel(architecture, vocabulary, context, width, heads, layers).to(torch.float32)
    state = np.random.SeedSequence([seed, INITIALISATION]).generate_state(1, np.uint64)[0]
    model.initialise(torch.Generator().manual_seed(int(state)))
    return model


class AdamW(Adam):
    """AdamW (Loshchilov & Hutter 2019, Algorithm 2) in torch.optim.AdamW's order: each parameter of `decayed` is first
    multiplied by 1 − lr·weight_decay, then every parameter takes Adam's step (`Adam.step`) at the same lr."""

    def __init__(self, parameters, decayed, lr: float, weight_decay: float, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8):
        super().__init__(parameters, lr, betas, eps)
        self.weight_decay = weight_decay
        decayed_ids = {id(parameter) for parameter in decayed}
        self.decayed = [parameter for parameter in self.parameters if id(parameter) in decayed_ids]

    @torch.no_grad()
    def step(self) -> None:
        for parameter in self.decayed:
            if parameter.grad is not None:
                parameter.mul_(1 - self.lr * self.weight_decay)
        super().step()


def decayed_parameters(model: nn.Module) -> list[nn.Parameter]:
    """nanoGPT's weight-decay group: every parameter of two or more dimensions (matrices and embeddings), no bias or
    LayerNorm."""
    return [parameter for parameter in model.parameters() if parameter.dim() >= 2]


def learning_rate_at(step: int, block: dict) -> float:
    """The learning rate of step `step` (from 0): (step + 1)/warmup of the peak during the `warmup` steps, then a cosine
    from the peak to `final_lr_fraction` of it at the last step."""
    peak, warmup, steps = block["learning_rate"], block["warmup"], block["steps"]
    if step < warmup:
        return peak * (step + 1) / warmup
    floor = peak * block["final_lr_fraction"]
    progress_ = (step - warmup) / max(1, steps - 1 - warmup)
    return floor + 0.5 * (1 + math.cos(math.pi * progress_)) * (peak - floor)


def next_character_loss(model: CharacterModel, windows: torch.Tensor) -> torch.Tensor:
    """Mean over windows and positions of −log p(next character | the characters before it), in nats."""
    logits = model(windows[:, :-1])
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), windows[:, 1:].reshape(-1))


@torch.no_grad()
def held_out_loss(model: CharacterModel, windows: torch.Tensor) -> float:
    """`next_character_loss` over every held-out window, EVALUATION_CHUNK windows at a time (a mean of equal-sized
    chunks' sums)."""
    was_training = model.training
    model.eval()
    total = sum(float(next_character_loss(model, windows[i : i + EVALUATION_CHUNK])) * len(windows[i : i + EVALUATION_CHUNK])
                for i in range(0, len(windows), EVALUATION_CHUNK))
    model.train(was_training)
    return total / len(windows)


def train_language_model(model: CharacterModel, corpus: LanguageCorpus, validation: np.ndarray, block: dict, seed: int,
                         log: logging.Logger | None = None, checkpoint=None) -> pd.DataFrame:
    """Trains in place for block["steps"] AdamW steps; returns the curve: one row per record, columns step (steps
    done), train_loss (the mean batch loss of the steps since the previous record, each before its update), val_loss
    (on `validation` after the step) and learning_rate (of the record's last step).

    Step t trains on `training_windows(corpus.train, batch, context, seed, t)`. A batch loss that is not finite raises
    `TrainingDiverged`. `checkpoint` (icdenoise.pipeline.checkpoints.Checkpoint or None): continue from its state (the
    weights, AdamW's moments and step count, the records and the batch losses since the last one) and save when due."""
    steps, record_every = block["steps"], block["record_every"]
    model.train()
    optimiser = AdamW(model.parameters(), decayed_parameters(model), block["learning_rate"], block["weight_decay"],
                      betas=tuple(block["betas"]))
    held_out = torch.from_numpy(validation)
    rows, pending, first = [], [], 0
    saved = checkpoint.resume("language loop on cpu") if checkpoint is not None else None
    if saved is not None:
        model.load_state_dict(saved["model"])
        optimiser.load_state(saved["optimiser"])
        rows, pending, first = [dict(row) for row in saved["rows"]], list(saved["pending"]), saved["step"]
    started = time.perf_counter()
    for step in range(first, steps):
        if checkpoint is not None and step > first and checkpoint.due(step):
            checkpoint.save(step, steps, {"model": {name: value.detach().clone() for name, value in model.state_dict().items()},
                                          "optimiser": optimiser.state(), "rows": [dict(row) for row in rows],
                                          "pending": list(pending), "step": step})
        windows = torch.from_numpy(training_windows(corpus.train, block["batch"], block["context"], seed, step))
        optimiser.lr = learning_rate_at(step, block)
        optimiser.zero_grad()
        loss = next_character_loss(model, windows)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), block["clip"])
        optimiser.step()
        pending.append(loss.item())
        if not math.isfinite(pending[-1]):
            raise TrainingDiverged(f"{model.architecture}, seed {seed}: batch loss {pending[-1]} at step {step}")
        done = step + 1
        if done % record_every == 0 or done == steps:
            rows.append({"step": done, "train_loss": float(np.mean(pending)), "val_loss": held_out_loss(model, held_out),
                         "learning_rate": optimiser.lr})
            pending = []
            elapsed = time.perf_counter() - started
            (log or module_log).info("%s seed %d %s: train loss %.4f, validation loss %.4f (%.1f s)", model.architecture, seed,
                                     progress(done, first, steps, elapsed), rows[-1]["train_loss"], rows[-1]["val_loss"], elapsed)
    return pd.DataFrame(rows)


def parameter_row(architecture: str, size: dict, block: dict, vocabulary: int, model: CharacterModel) -> dict:
    """A model's row of the parameter table: its sizes, its counted parameters and the closed form's."""
    return {"model": architecture, "layers": size["layers"], "width": size["width"], "heads": size["heads"],
            "parameters": parameter_count(model), "parameters_closed_form": closed_form_parameters(
                architecture, size["layers"], size["width"], vocabulary, block["context"]), "has_mlp": model.has_mlp()}


def run_language_model(table: pd.DataFrame, block: dict, architecture: str, seed: int, log: logging.Logger | None = None,
                       checkpoint=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One model of `architecture` trained from `seed` on the corpus `table` (`language_corpus.corpus_table`) by the
    settings `block` (the config's mssa.language): its curve (`train_language_model`, with model and seed) and its
    one-row final table (the last record's losses, the unigram loss of the held-out windows and `parameter_row`)."""
    corpus = LanguageCorpus.from_table(table, block["min_count"])
    validation = validation_windows(corpus.validation, block["validation_windows"], block["context"])
    size = model_sizes(block, corpus.size)[architecture]
    model = build_language_model(architecture, corpus.size, block["context"], size["width"], size["heads"], size["layers"], seed)
    (log or module_log).info("%s: %d layers, width %d, %d heads, %d parameters; %d characters, %d training and %d held-out",
                             architecture, size["layers"], size["width"], size["heads"], parameter_count(model), corpus.size,
                             len(corpus.train), len(corpus.validation))
    curve = train_language_model(model, corpus, validation, block, seed, log=log, checkpoint=checkpoint)
    last = curve.iloc[-1]
    final = pd.DataFrame([{**parameter_row(architecture, size, block, corpus.size, model), "seed": seed, "steps": int(last["step"]),
                           "train_loss": float(last["train_loss"]), "val_loss": float(last["val_loss"]),
                           "unigram_loss": unigram_loss(corpus, validation), "vocabulary": corpus.size,
                           "context": block["context"], "scale": block["scale"]}])
    return curve.assign(model=architecture, seed=seed), final


def parameter_table(final: pd.DataFrame) -> pd.DataFrame:
    """One row per model of the final tables: its layers, width, heads, parameter count (counted and closed form),
    whether it has MLPs, its count over the transformer's, and beside them Table 4's model, count, layers and width."""
    columns = ["model", "layers", "width", "heads", "parameters", "parameters_closed_form", "has_mlp", "vocabulary", "context"]
    table = final[columns].drop_duplicates().reset_index(drop=True)
    if table["model"].duplicated().any():
        raise ValueError("the seeds of one model disagree on its sizes")
    reference = table.loc[table["model"] == "transformer", "parameters"]
    table["ratio_to_transformer"] = table["parameters"] / reference.iloc[0] if len(reference) else np.nan
    return table.assign(**{key: [TABLE4[model][key] for model in table["model"]] for key in TABLE4["transformer"]})
