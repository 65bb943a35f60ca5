"""The vision models of Wang et al. 2025 (Sec. 4.1, Tables 1–2, Fig. 7 of App. C.3), scaled to scikit-learn's
handwritten digits, and their training.

ImageNet cannot reach this machine; the digits ship inside scikit-learn (`sklearn.datasets.load_digits`: 1,797
grey-scale images of 8 × 8 pixels, integers 0–16, ten classes). The pipeline is the paper's (Yu et al. 2024,
Sec. 4.1.1, which Sec. 4.1 adopts) at toy size:

- **Data** (`digit_images`, `stratified_split`, `patchify`): pixels scaled to [0, 1] (divided by 16); each image cut
  into non-overlapping `patch` × `patch` patches, row-major, each patch's pixels row-major as one token
  (8 × 8 with patch 2: 16 tokens of 4 pixels); a fixed, seeded, stratified train/test split.
- **Models** (`DigitClassifier`): a learned linear patch embedding to the width D, a learned class token [CLS]
  prepended, learned positional embeddings, the blocks, a final LayerNorm and a linear head on the class token.
  The blocks are the study's own (icdenoise.studies.mssa.transformers), with the attention bidirectional (an image
  has no order to mask):
  - `mssa` (AoT-MSSA-V, Table 1): attention-only, Z ← Z + W_O·MSSA(LN(Z)), one U_k per head shared by query, key
    and value (eq. 4 with a softmax φ, eq. 5 with W_Q = W_K = W_V = U_k): 2D² attention weights a layer;
  - `mhsa` (AoT-MHSA-V, Table 2): attention-only with standard multi-head attention, 4D² a layer;
  - `vit` (ViT, Table 2): attention as in `mhsa`, then an MLP of width 4D (the GPT-2 block, pre-LN), about 12D².
  Tables 1–2 give parameter counts, not depths; Table 2's AoT-MHSA-V has 15/22 = 0.68 of the ViT's parameters,
  and at one width an attention-only model with twice the ViT's layers has 8/12 = 0.67 of its block parameters
  (Table 5 doubles the depth the same way), so the config gives the AoT models twice the ViT's layers.
- **Training** (`train_classifier`): Adam on the cross-entropy of the head's logits, minibatches drawn without
  replacement within each epoch from `seed`; checkpointed and resumed bit for bit (icdenoise.pipeline.checkpoints).
- **Fig. 7** (`class_attention`): the class token's attention over the patches, per head, in the penultimate layer.
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
from icdenoise.maths.digits import CLASSES, digit_images
from icdenoise.maths.training import DIVERGENCE_FACTOR, TrainingDiverged, progress
from icdenoise.studies.mssa.transformers import (
    INITIAL_STD,
    AttentionOnlyBlock,
    MultiHeadSelfAttention,
    SubspaceSelfAttention,
    TransformerBlock,
    merge_heads,
    split_heads,
)

VISION_MODELS = ("mssa", "mhsa", "vit")
MODEL_NAMES = {"mssa": "AoT-MSSA-V", "mhsa": "AoT-MHSA-V", "vit": "ViT"}  # the paper's names (Tables 1–2)
CHANCE = 1 / CLASSES  # a classifier that guesses; the stratified test set is nearly balanced
EVALUATION_CHUNK = 512  # test images per forward pass

module_log = logging.getLogger(__name__)


# data

def stratified_split(labels: np.ndarray, test_fraction: float, seed: int) -> np.ndarray:
    """A boolean mask of the test images: per class c, round(test_fraction · n_c) of its images, drawn without
    replacement by default_rng([seed, c]); so the split depends on the seed and the labels alone."""
    test = np.zeros(labels.shape, dtype=bool)
    for label in np.unique(labels):
        members = np.flatnonzero(labels == label)
        chosen = np.random.default_rng([seed, int(label)]).permutation(members)[: round(test_fraction * members.size)]
        test[chosen] = True
    return test


def split_table(test_fraction: float, seed: int) -> pd.DataFrame:
    """One row per image: its index in load_digits, label, split (train or test) and the 64 pixels (p0 … p63,
    row-major, scaled to [0, 1])."""
    images, labels = digit_images()
    test = stratified_split(labels, test_fraction, seed)
    pixels = pd.DataFrame(images.reshape(len(images), -1), columns=[f"p{i}" for i in range(images[0].size)])
    return pd.concat([pd.DataFrame({"image": np.arange(len(labels)), "label": labels,
                                    "split": np.where(test, "test", "train")}), pixels], axis=1)


def images_of(table: pd.DataFrame) -> np.ndarray:
    """(n, side, side) float32 images from `split_table`'s rows."""
    pixels = table[[column for column in table.columns if column.startswith("p") and column[1:].isdigit()]].to_numpy(np.float32, copy=True)
    side = math.isqrt(pixels.shape[1])
    return pixels.reshape(len(pixels), side, side)


def patchify(images: np.ndarray | torch.Tensor, patch: int):
    """(n, H, W) -> (n, (H/patch)·(W/patch), patch²): non-overlapping patches in row-major order, each patch's
    pixels row-major (ViT's tokenisation, Dosovitskiy et al. 2021)."""
    n, height, width = images.shape
    if height % patch or width % patch:
        raise ValueError(f"patch {patch} does not divide the {height} × {width} image")
    blocks = images.reshape(n, height // patch, patch, width // patch, patch)
    return blocks.transpose(0, 1, 3, 2, 4).reshape(n, (height // patch) * (width // patch), patch * patch) \
        if isinstance(images, np.ndarray) else blocks.permute(0, 1, 3, 2, 4).reshape(n, -1, patch * patch)


def unpatchify(tokens: np.ndarray, patch: int, height: int, width: int) -> np.ndarray:
    """`patchify`'s inverse: (n, tokens, patch²) -> (n, H, W)."""
    n = tokens.shape[0]
    blocks = tokens.reshape(n, height // patch, width // patch, patch, patch)
    return blocks.transpose(0, 1, 3, 2, 4).reshape(n, height, width)


def digit_tensors(rows: pd.DataFrame, patch: int) -> tuple[torch.Tensor, torch.Tensor]:
    """`split_table`'s rows as a model's input: patches (n, tokens, patch²) float32 and labels (n,) int64."""
    return patchify(torch.from_numpy(images_of(rows)), patch), torch.tensor(rows["label"].to_numpy(), dtype=torch.int64)


def attention_image_rows(split: pd.DataFrame, digits: list[int]) -> pd.DataFrame:
    """Fig. 7's images: for each digit listed, the first test image (lowest index) of that class."""
    test = split[split["split"] == "test"].sort_values("image")
    return pd.concat([test[test["label"] == digit].head(1) for digit in digits])


# models

def attention_weights(queries: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
    """(B, H, N, p) each -> (B, H, N, N): softmax_j(q_i·k_j / √p), every token attending to every token."""
    return torch.softmax(queries @ keys.transpose(-2, -1) / math.sqrt(queries.shape[-1]), dim=-1)


class ImageSubspaceAttention(SubspaceSelfAttention):
    """`SubspaceSelfAttention` (eq. 4, softmax φ, learned W_O) over all tokens of an image: no causal mask."""

    def heads_and_weights(self, tokens: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(B, N, D) -> the heads' values (B, K, N, p) and their attention weights (B, K, N, N)."""
        projected = split_heads(self.subspaces(tokens), self.heads)  # (B, K, N, p): U_kᵀ z_j
        return projected, attention_weights(projected, projected)

    def weights(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.heads_and_weights(tokens)[1]

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        values, weights = self.heads_and_weights(tokens)
        return self.output(merge_heads(weights @ values))


class ImageMultiHeadAttention(MultiHeadSelfAttention):
    """`MultiHeadSelfAttention` (eq. 5) over all tokens of an image: no causal mask."""

    def heads_and_weights(self, tokens: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        queries, keys, values = (split_heads(part, self.heads) for part in self.queries_keys_values(tokens).chunk(3, dim=-1))
        return values, attention_weights(queries, keys)

    def weights(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.heads_and_weights(tokens)[1]

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        values, weights = self.heads_and_weights(tokens)
        return self.output(merge_heads(weights @ values))


class ImageTransformerBlock(TransformerBlock):
    """`TransformerBlock` (attention, then the 4D GELU MLP) with `ImageMultiHeadAttention`: a ViT block."""

    def __init__(self, width: int, heads: int):
        super().__init__(width, heads)
        self.attention = ImageMultiHeadAttention(width, heads)


def make_image_block(architecture: str, width: int, heads: int) -> nn.Module:
    if architecture == "mssa":
        return AttentionOnlyBlock(ImageSubspaceAttention(width, heads), width)
    if architecture == "mhsa":
        return AttentionOnlyBlock(ImageMultiHeadAttention(width, heads), width)
    return ImageTransformerBlock(width, heads)


def block_norm(block: nn.Module) -> nn.LayerNorm:
    """The LayerNorm in front of a block's attention."""
    return block.norm if isinstance(block, AttentionOnlyBlock) else block.attention_norm


class DigitClassifier(nn.Module):
    """[CLS] + patch tokens -> blocks -> LayerNorm -> a linear head on the class token (Yu et al. 2024, Sec. 4.1.1)."""

    def __init__(self, architecture: str, patch_pixels: int, patches: int, width: int, heads: int, layers: int, classes: int = CLASSES):
        super().__init__()
        self.architecture = architecture
        self.read_in = nn.Linear(patch_pixels, width)
        self.class_token = nn.Parameter(torch.zeros(width))
        self.positions = nn.Parameter(torch.zeros(patches + 1, width))
        self.blocks = nn.ModuleList(make_image_block(architecture, width, heads) for _ in range(layers))
        self.final_norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, classes)

    def initialise(self, generator: torch.Generator) -> None:
        """As `InContextRegressor.initialise`: inside the stack GPT-2's N(0, 0.02²) for weights, the class token and
        the positions, biases 0, LayerNorm (1, 0), N(0, (0.02/√R)²) for the R projections that end a residual
        branch; the patch embedding and the head, outside it, torch's default U(±1/√fan_in)."""
        branches = sum(block.residual_branches for block in self.blocks)
        branch_ends = {id(block.attention.output.weight) for block in self.blocks}
        branch_ends |= {id(block.mlp[2].weight) for block in self.blocks if isinstance(block, TransformerBlock)}
        with torch.no_grad():
            for layer in (self.read_in, self.head):
                bound = 1 / math.sqrt(layer.in_features)
                nn.init.uniform_(layer.weight, -bound, bound, generator=generator)
                nn.init.uniform_(layer.bias, -bound, bound, generator=generator)
            for name, parameter in self.named_parameters():
                if name.startswith(("read_in.", "head.")):
                    continue
                if id(parameter) in branch_ends:
                    nn.init.normal_(parameter, 0.0, INITIAL_STD / math.sqrt(branches), generator=generator)
                elif "norm" in name:
                    parameter.fill_(1.0 if name.endswith("weight") else 0.0)
                elif name.endswith("bias"):
                    parameter.zero_()
                else:
                    nn.init.normal_(parameter, 0.0, INITIAL_STD, generator=generator)

    def embed(self, patches: torch.Tensor) -> torch.Tensor:
        """(B, N, patch²) -> (B, N + 1, D): [CLS] first, then the patches, plus the positions."""
        tokens = self.read_in(patches)
        cls = self.class_token.expand(tokens.shape[0], 1, -1)
        return torch.cat([cls, tokens], dim=1) + self.positions

    def forward(self, patches: torch.Tensor) -> torch.Tensor:
        """(B, N, patch²) -> (B, classes) logits."""
        tokens = self.embed(patches)
        for block in self.blocks:
            tokens = block(tokens)
        return self.head(self.final_norm(tokens[:, 0]))

    @torch.no_grad()
    def class_attention(self, patches: torch.Tensor, layer: int) -> torch.Tensor:
        """(B, N, patch²) -> (B, heads, N + 1): block `layer`'s (0-based) attention weights of the class token
        over every token, itself first (App. C.3: the [CLS] row of a head's attention map)."""
        tokens = self.embed(patches)
        for block in self.blocks[:layer]:
            tokens = block(tokens)
        block = self.blocks[layer]
        return block.attention.weights(block_norm(block)(tokens))[:, :, 0]


def build_classifier(architecture: str, patch: int, side: int, width: int, heads: int, layers: int, seed: int) -> DigitClassifier:
    """A model of Tables 1–2's kind for `side` × `side` images cut into `patch` × `patch` patches, initialised
    from `seed` (its own stream, apart from the minibatches')."""
    if architecture not in VISION_MODELS:
        raise ValueError(f"architecture must be one of {VISION_MODELS}, got {architecture!r}")
    if width % heads:
        raise ValueError(f"width {width} is not a multiple of heads {heads}")
    model = DigitClassifier(architecture, patch * patch, (side // patch) ** 2, width, heads, layers).to(torch.float32)
    initial_state = np.random.SeedSequence(seed).spawn(1)[0].generate_state(1, np.uint64)[0]
    model.initialise(torch.Generator().manual_seed(int(initial_state)))
    return model


def penultimate(layers: int) -> int:
    """Fig. 7's layer, 0-based: the second to last."""
    if layers < 2:
        raise ValueError(f"a model of {layers} layer has no penultimate layer")
    return layers - 2


# training

def minibatch(train_size: int, batch: int, seed: int, step: int) -> np.ndarray:
    """Step `step`'s minibatch: positions in the training set, epoch e = step // (train_size // batch) a permutation
    drawn by default_rng([seed, e]) and cut into whole batches (the remainder unused that epoch); so a step's batch
    follows from the seed and the step alone."""
    per_epoch = train_size // batch
    if per_epoch < 1:
        raise ValueError(f"a batch of {batch} exceeds the {train_size} training images")
    epoch, position = divmod(step, per_epoch)
    return np.random.default_rng([seed, epoch]).permutation(train_size)[position * batch : (position + 1) * batch]


@torch.no_grad()
def predict(model: DigitClassifier, patches: torch.Tensor) -> np.ndarray:
    """The predicted class of every image, `EVALUATION_CHUNK` at a time."""
    was_training = model.training
    model.eval()
    predicted = torch.cat([model(patches[i : i + EVALUATION_CHUNK]).argmax(dim=-1) for i in range(0, len(patches), EVALUATION_CHUNK)])
    model.train(was_training)
    return predicted.numpy()


def accuracy(model: DigitClassifier, patches: torch.Tensor, labels: torch.Tensor) -> float:
    """Top-1 accuracy (Tables 1–2's measure)."""
    return float((predict(model, patches) == labels.numpy()).mean())


def train_classifier(model: DigitClassifier, train: tuple[torch.Tensor, torch.Tensor], test: tuple[torch.Tensor, torch.Tensor], steps: int, batch: int, learning_rate: float, seed: int, record_every: int, log: logging.Logger | None = None, checkpoint=None) -> pd.DataFrame:
    """Trains in place with Adam on the mean cross-entropy of each minibatch (`minibatch`); returns the training
    curve: step, loss (the step's batch loss before its update) and test_accuracy (the model's before that update),
    at steps 0, record_every, … and the last step, each with a log line. A loss that is not finite or over
    DIVERGENCE_FACTOR times log(classes), the cross-entropy of a uniform guess, raises `TrainingDiverged`.
    `checkpoint` (an icdenoise.pipeline.checkpoints.Checkpoint, or None): the run continues from its saved state (the
    parameters, Adam's state, the step and the curve so far; every batch follows from the seed and the step) and saves
    when it is due, with the numbers of a run that never stopped."""
    (train_patches, train_labels), (test_patches, test_labels) = train, test
    model.train()
    optimiser = Adam(model.parameters(), lr=learning_rate)
    guess = math.log(model.head.out_features)
    rows, first = [], 0
    saved = checkpoint.resume("per-step loop on cpu") if checkpoint is not None else None
    if saved is not None:
        model.load_state_dict(saved["model"])
        optimiser.load_state(saved["optimiser"])
        rows, first = [dict(row) for row in saved["rows"]], saved["step"]
    started = time.perf_counter()
    for step in range(first, steps):
        if checkpoint is not None and step > first and checkpoint.due(step):
            checkpoint.save(step, steps, {"model": {name: value.detach().clone() for name, value in model.state_dict().items()},
                                          "optimiser": optimiser.state(), "rows": [dict(row) for row in rows], "step": step})
        recorded = step % record_every == 0 or step == steps - 1
        test_accuracy = accuracy(model, test_patches, test_labels) if recorded else math.nan
        chosen = torch.from_numpy(minibatch(len(train_labels), batch, seed, step))
        optimiser.zero_grad()
        loss = F.cross_entropy(model(train_patches[chosen]), train_labels[chosen])
        loss.backward()
        optimiser.step()
        loss = loss.item()
        if not math.isfinite(loss) or loss > DIVERGENCE_FACTOR * guess:
            raise TrainingDiverged(f"{model.architecture}, seed {seed}: loss {loss:.4g} at step {step}, not finite or over "
                                   f"{DIVERGENCE_FACTOR:g} times a uniform guess's {guess:.4g}")
        if recorded:
            rows.append({"step": step, "loss": loss, "test_accuracy": test_accuracy})
            elapsed = time.perf_counter() - started
            (log or module_log).info("%s %s: batch loss %.4f, test accuracy %.4f (%.1f s)", MODEL_NAMES[model.architecture],
                                     progress(step, first, steps, elapsed), loss, test_accuracy, elapsed)
    return pd.DataFrame(rows)


def attention_table(model: DigitClassifier, patches: torch.Tensor, images: pd.DataFrame, patch: int, layer: int) -> pd.DataFrame:
    """Fig. 7's maps: per image (its load_digits index and label), head and patch (its row and column in the patch
    grid), the class token's attention weight on that patch in block `layer`; class_self is its weight on itself
    (the weights over the patches sum to 1 − class_self)."""
    weights = model.class_attention(patches, layer).numpy()  # (B, heads, N + 1)
    count, heads, tokens = weights.shape
    grid = math.isqrt(tokens - 1)
    image, head, token = np.meshgrid(np.arange(count), np.arange(heads), np.arange(1, tokens), indexing="ij")
    return pd.DataFrame({"image": images["image"].to_numpy()[image.ravel()], "label": images["label"].to_numpy()[image.ravel()],
                         "head": head.ravel(), "patch": token.ravel() - 1, "patch_row": (token.ravel() - 1) // grid,
                         "patch_col": (token.ravel() - 1) % grid, "weight": weights[image, head, token].ravel(),
                         "class_self": weights[image, head, 0].ravel(), "layer": layer, "patch_size": patch})
