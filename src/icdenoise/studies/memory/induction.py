"""Induction heads as associative memories (Bietti 2025 slides 15-20, after Bietti et al. 2023, "Birth of a
transformer"): the bigrams-with-triggers task, a 1- and a 2-layer attention-only transformer on frozen random
embeddings, its training, and the memory-recall probes of its weight matrices.

Slide numbers count the deck's pages (the text prints "14 / 25" on the outline before this part and "23 / 25"
on the Vural et al. slide): 15 is the data model, 16 the 1-layer (∼55%) and 2-layer (∼99%) accuracies, 17 the
previous-token and induction heads, 18 random embeddings and remapping, 19 "Induction head with associative
memories", 20 "Empirically probing the dynamics" (what is trained, the loss, the probes, the learning order).

The slides estimate the global bigrams π_b from character-level Shakespeare. We have no text corpus, so π_b
is synthetic: every row is a Dirichlet draw (docs/memory.md, "Induction heads").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch
from torch import nn

from ...adam import Adam
from .embeddings import gaussian_embeddings, generator

DTYPE = torch.float32
LAYER_COUNTS = (1, 2)

# Purpose codes: the second key of every generator, so that each stream (embeddings, bigram model, test set,
# a run's batches, a run's initial weights) is independent of the others.
EMBEDDINGS, BIGRAMS, TEST_SET, BATCHES, INITIAL_WEIGHTS = 1, 2, 3, 4, 5

PROBED = {  # probe column → (the matrix it reads, a label for figures and order strings)
    "probe_wov2": ("wov2", "W_OV²"),
    "probe_wkq2": ("wkq2", "W_KQ²"),
    "probe_wkq1": ("wkq1", "W_KQ¹"),
    "probe_wov1": ("wov1", "W_OV¹"),
}
SLIDES_ORDER = ("probe_wov2", "probe_wkq2", "probe_wkq1")  # slide 20: "W_OV² first, W_KQ² next, W_KQ¹ last"


@dataclass(frozen=True)
class TriggerBigrams:
    """Slide 15's sequence model. Fixed trigger tokens q_1..q_K; per sequence, output tokens o_k ~ π_o; then
    z_1 ~ π_1 and z_t | z_{t−1} = i is o_k when i = q_k, else drawn from π_b(·|i).

    Our choices: π_b has i.i.d. Dirichlet(concentration) rows; π_1 is π_b's stationary distribution (the
    unigram, as Birth of a transformer takes π_1); the triggers are the K most frequent tokens under π_1 (Birth
    of a transformer draws them among frequent tokens); π_o is uniform over the non-trigger tokens, so no
    trigger maps to a trigger and no sequence is trapped in a deterministic loop."""

    transitions: torch.Tensor  # (N, N) float64; row i is π_b(·|i)
    initial: torch.Tensor      # (N,) float64; π_1
    triggers: torch.Tensor     # (K,) int64; q_1..q_K
    outputs: torch.Tensor      # (N − K,) int64; the support of π_o

    @property
    def vocabulary(self) -> int:
        return self.transitions.shape[0]

    def sample(self, rng: torch.Generator, sequences: int, length: int) -> tuple[torch.Tensor, torch.Tensor]:
        """`sequences` sequences of `length` tokens, as a (sequences, length) int64 tensor, and their outputs
        o_1..o_K as a (sequences, K) int64 tensor. Draws by inverse CDF from one block of uniforms."""
        triggers = self.triggers
        outputs = self.outputs[torch.randint(len(self.outputs), (sequences, len(triggers)), generator=rng)]
        uniforms = torch.rand(length, sequences, generator=rng, dtype=torch.float64)  # row t: one per sequence
        forced = torch.full((sequences, self.vocabulary), -1, dtype=torch.int64)
        forced[:, triggers] = outputs  # forced[b, i] = o_k if i = q_k, else −1
        bigram_cdf = torch.cumsum(self.transitions, dim=1)
        last = self.vocabulary - 1
        tokens = torch.empty(sequences, length, dtype=torch.int64)
        tokens[:, 0] = torch.searchsorted(torch.cumsum(self.initial, 0), uniforms[0], right=True).clamp_max(last)
        for t in range(1, length):
            previous = tokens[:, t - 1]
            bigram = torch.searchsorted(bigram_cdf[previous], uniforms[t, :, None], right=True)[:, 0].clamp_max(last)
            fixed = forced.gather(1, previous[:, None])[:, 0]
            tokens[:, t] = torch.where(fixed >= 0, fixed, bigram)
        return tokens, outputs


def stationary_distribution(transitions: np.ndarray) -> np.ndarray:
    """π with π P = π and Σ π = 1, for a row-stochastic P with positive entries: the left eigenvector of P for
    its largest eigenvalue, 1 (Perron-Frobenius)."""
    eigenvalues, eigenvectors = np.linalg.eig(transitions.T)
    leading = np.real(eigenvectors[:, np.argmax(np.real(eigenvalues))])
    return leading / leading.sum()


def trigger_bigrams(block: dict) -> TriggerBigrams:
    """The block's task, drawn from `block["seed"]` alone: every run of the block shares it."""
    vocabulary, trigger_count = block["vocabulary"], block["triggers"]
    if not 1 <= trigger_count <= vocabulary - 2:
        raise ValueError(f"triggers = {trigger_count} must lie in [1, vocabulary − 2 = {vocabulary - 2}]")
    rng = np.random.default_rng([block["seed"], BIGRAMS])
    transitions = rng.dirichlet(np.full(vocabulary, float(block["concentration"])), size=vocabulary)
    initial = stationary_distribution(transitions)
    triggers = np.sort(np.argsort(-initial, kind="stable")[:trigger_count])
    outputs = np.setdiff1d(np.arange(vocabulary), triggers)
    return TriggerBigrams(torch.from_numpy(transitions), torch.from_numpy(initial), torch.from_numpy(triggers),
                          torch.from_numpy(outputs))


def output_positions(tokens: torch.Tensor, triggers: torch.Tensor) -> torch.Tensor:
    """(B, T) bool: position t holds a trigger that already occurred before t, so z_{t+1} is its output o_k, fixed
    by the sequence (slide 20: "loss on deterministic output tokens only")."""
    vocabulary = int(max(tokens.max(), triggers.max())) + 1
    occurrences = torch.cumsum(nn.functional.one_hot(tokens, vocabulary), dim=1)  # [b, t, i] = #{s ≤ t: z_s = i}
    seen_before = occurrences.gather(2, tokens[..., None])[..., 0] >= 2
    return seen_before & torch.isin(tokens, triggers)


@dataclass(frozen=True)
class FrozenEmbeddings:
    """Slides 18-19: input embeddings e_z, positional p_t, output u_v and the first layer's remapping W_OV¹, all
    with i.i.d. N(0, 1/d) entries and never trained."""

    tokens: torch.Tensor     # (N, d); row z is e_z
    positions: torch.Tensor  # (T, d); row t is p_t
    outputs: torch.Tensor    # (N, d); row v is u_v
    remapping: torch.Tensor  # (d, d); W_OV¹ of the 2-layer model, ẽ_k = W_OV¹ e_k

    def to(self, device: torch.device) -> FrozenEmbeddings:
        return FrozenEmbeddings(*(tensor.to(device) for tensor in
                                  (self.tokens, self.positions, self.outputs, self.remapping)))


def frozen_embeddings(block: dict) -> FrozenEmbeddings:
    """The block's embeddings, drawn from `block["seed"]` alone: every run of the block shares them."""
    rng = generator(block["seed"], EMBEDDINGS, block["d"])
    vocabulary, length, d = block["vocabulary"], block["length"], block["d"]
    tokens = gaussian_embeddings(rng, vocabulary, d)
    positions = gaussian_embeddings(rng, length, d)
    outputs = gaussian_embeddings(rng, vocabulary, d)
    remapping = gaussian_embeddings(rng, d, d)
    return FrozenEmbeddings(tokens, positions, outputs, remapping)


class AttentionOnlyTransformer(nn.Module):
    """Birth of a transformer's model (slide 19): residual stream x_t = e_{z_t} + p_t; each layer adds
    W_OV Σ_{s ≤ t} β_s x_s with β = softmax_s(x_sᵀ W_KQ x_t), single head, no normalisation, no MLP; logits
    u_vᵀ x_t.

    The 2-layer model trains W_KQ¹, W_KQ², W_OV² and keeps W_OV¹ the frozen random remapping (slide 20: "Train
    only W_KQ¹, W_KQ², W_OV²"). The 1-layer model trains W_KQ¹ and W_OV¹: with W_OV¹ frozen its only layer could
    write nothing that the output embeddings read. Trained matrices start with i.i.d. N(0, 1/d) entries (the
    init of slide 3), from the run's own generator."""

    def __init__(self, embeddings: FrozenEmbeddings, layers: int, rng: torch.Generator):
        super().__init__()
        if layers not in LAYER_COUNTS:
            raise ValueError(f"layers must be one of {LAYER_COUNTS}, got {layers}")
        d = embeddings.tokens.shape[1]
        self.layers = layers
        self.register_buffer("token_embeddings", embeddings.tokens)
        self.register_buffer("position_embeddings", embeddings.positions)
        self.register_buffer("output_embeddings", embeddings.outputs)
        trained = ("wkq1", "wov1") if layers == 1 else ("wkq1", "wkq2", "wov2")
        self.trained = nn.ParameterDict({name: nn.Parameter(gaussian_embeddings(rng, d, d)) for name in trained})
        if layers == 2:
            self.register_buffer("wov1", embeddings.remapping)

    def matrix(self, name: str) -> torch.Tensor | None:
        """W_KQ^l or W_OV^l by name (wkq1, wov1, wkq2, wov2), trained or frozen; None where the model has no such layer."""
        if name in self.trained:
            return self.trained[name]
        return dict(self.named_buffers()).get(name)

    def attend(self, layer: int, keys: torch.Tensor, queries: torch.Tensor, query_positions: torch.Tensor) -> torch.Tensor:
        """Layer `layer` at the given query positions: x_t + W_OV Σ_{s ≤ t} β_s x_s, β = softmax_s(x_sᵀ W_KQ x_t), for
        keys (B, T, d) holding x_1..x_T, queries (B, Q, d) holding the x_t, and their positions t (B or 1, Q)."""
        key_query, output_value = self.matrix(f"wkq{layer}"), self.matrix(f"wov{layer}")
        scores = (queries @ key_query.T) @ keys.transpose(1, 2)  # [b, q, s] = x_sᵀ W_KQ x_t
        causal = torch.arange(keys.shape[1], device=keys.device) <= query_positions[..., None]  # [b, q, s]: s ≤ t
        attention = torch.softmax(scores.masked_fill(~causal, float("-inf")), dim=-1)
        return queries + (attention @ keys) @ output_value.T

    def residual_stream(self, tokens: torch.Tensor, layers: int) -> torch.Tensor:
        """(B, T) tokens → (B, T, d): x_t after the first `layers` layers (0: the embeddings e_{z_t} + p_t)."""
        length = tokens.shape[1]
        x = self.token_embeddings[tokens] + self.position_embeddings[:length]
        positions = torch.arange(length, device=tokens.device)[None]
        for layer in range(1, layers + 1):
            x = self.attend(layer, x, x, positions)
        return x

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """(B, T) tokens → (B, T, N) logits u_vᵀ x_t at every position."""
        return self.residual_stream(tokens, self.layers) @ self.output_embeddings.T

    def logits_at(self, tokens: torch.Tensor, where: torch.Tensor) -> torch.Tensor:
        """(B, T) tokens and a (B, T) bool mask of M positions → (M, N) logits there, in the order of `where`'s
        nonzero entries: `forward(tokens)[where]`, with the last layer computed at those positions only."""
        keys = self.residual_stream(tokens, self.layers - 1)  # (B, T, d)
        slot = torch.cumsum(where, dim=1) - 1  # a query's rank among its sequence's queries
        positions = torch.zeros(len(tokens), int(where.sum(dim=1).max()), dtype=torch.int64, device=tokens.device)
        sequence, position = where.nonzero(as_tuple=True)
        positions[sequence, slot[sequence, position]] = position  # (B, Q): each sequence's query positions, padded with 0
        queries = keys.gather(1, positions[..., None].expand(-1, -1, keys.shape[2]))  # (B, Q, d)
        outputs = self.attend(self.layers, keys, queries, positions)
        return outputs[sequence, slot[sequence, position]] @ self.output_embeddings.T


def output_loss_and_hits(model: AttentionOnlyTransformer, tokens: torch.Tensor,
                         triggers: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, int]:
    """Mean cross-entropy and the number of correct argmax predictions of z_{t+1} over the output positions of
    `tokens[:, :-1]` (`output_positions`), and how many there are."""
    inputs, targets = tokens[:, :-1], tokens[:, 1:]
    mask = output_positions(inputs, triggers)
    count = int(mask.sum())
    if count == 0:
        raise ValueError("no trigger occurs twice in these sequences: raise length or batch")
    logits = model.logits_at(inputs, mask)
    loss = nn.functional.cross_entropy(logits, targets[mask])
    hits = (logits.argmax(dim=1) == targets[mask]).sum()
    return loss, hits, count


def recall(weight: torch.Tensor, inputs: torch.Tensor, outputs: torch.Tensor, answers: torch.Tensor) -> float:
    """Slide 20's memory-recall probe R(Ŵ, W*) = (1/M) Σ_i 1{a_i = argmax_j o_jᵀ Ŵ x_i} of the target memory
    W* = Σ_i o_{a_i} x_iᵀ: inputs x_i (M, d), candidate outputs o_j (M', d), the right answer a_i (M,) for each
    input. The slides' case is M' = M, a_i = i."""
    scores = inputs @ weight.T @ outputs.T  # [i, j] = o_jᵀ Ŵ x_i
    return float((scores.argmax(dim=1) == answers).to(DTYPE).mean())


def probe_targets(embeddings: FrozenEmbeddings, task: TriggerBigrams) -> dict[str, tuple[torch.Tensor, ...]]:
    """The ideal associative memory of each probed matrix, as (inputs, candidate outputs, answers) for `recall`:
    - wov2 (induction head's output): e_k ↦ u_k for every token k that can be an output (support of π_o), among
      all N output embeddings;
    - wkq2 (induction head's key-query): a trigger's embedding e_q ↦ its remapped embedding ẽ_q = W_OV¹ e_q
      (what the previous-token head wrote at the position after q), among all N remapped tokens;
    - wkq1 (previous-token head): p_t ↦ p_{t−1} for t = 2..T, among all T positions;
    - wov1 (the 1-layer model's only output matrix): e_k ↦ u_k as for wov2 (copying the attended token)."""
    device = embeddings.tokens.device
    tokens, positions, outputs = embeddings.tokens, embeddings.positions, embeddings.outputs
    remapped = tokens @ embeddings.remapping.T  # row k is ẽ_k
    copy = (tokens[task.outputs.to(device)], outputs, task.outputs.to(device))
    return {
        "wov2": copy,
        "wkq2": (tokens[task.triggers.to(device)], remapped, task.triggers.to(device)),
        "wkq1": (positions[1:], positions, torch.arange(len(positions) - 1, device=device)),
        "wov1": copy,
    }


def probes(model: AttentionOnlyTransformer, targets: dict) -> dict[str, float]:
    """Every probe column: the recall of the model's matrix against its ideal target, NaN where the model does not
    train that matrix (the 1-layer model has no W_KQ², W_OV²; the 2-layer model's W_OV¹ is frozen)."""
    values = {}
    for column, (name, _) in PROBED.items():
        weight = model.trained[name] if name in model.trained else None
        values[column] = float("nan") if weight is None else recall(weight.detach(), *targets[name])
    return values


class SGD:
    """Plain stochastic gradient descent with heavy-ball momentum μ, in torch.optim.SGD's form
    (buffer ← μ·buffer + gradient, the first buffer being the gradient; parameter ← parameter − lr·buffer)."""

    def __init__(self, parameters, lr: float, momentum: float = 0.0):
        self.parameters = list(parameters)
        self.lr, self.momentum = lr, momentum
        self.buffers: list[torch.Tensor | None] = [None] * len(self.parameters)

    def zero_grad(self) -> None:
        for parameter in self.parameters:
            parameter.grad = None

    @torch.no_grad()
    def step(self) -> None:
        for index, parameter in enumerate(self.parameters):
            if parameter.grad is None:
                continue
            direction = parameter.grad
            if self.momentum:
                buffer = self.buffers[index]
                self.buffers[index] = direction = (direction.clone() if buffer is None
                                                   else buffer.mul_(self.momentum).add_(direction))
            parameter.add_(direction, alpha=-self.lr)


def make_optimizer(name: str, options: dict, parameters):
    """The configured optimiser: `adam` {learning_rate} (default betas and eps) or `sgd` {learning_rate, momentum}."""
    if name == "adam":
        return Adam(parameters, lr=options["learning_rate"])
    if name == "sgd":
        return SGD(parameters, lr=options["learning_rate"], momentum=options.get("momentum", 0.0))
    raise ValueError(f"unknown optimizer {name!r}; allowed: adam, sgd")


@torch.no_grad()
def evaluate(model: AttentionOnlyTransformer, test_tokens: torch.Tensor, triggers: torch.Tensor,
             chunk: int = 256) -> tuple[float, float]:
    """Test cross-entropy and accuracy over every output position of the test sequences, in chunks of sequences."""
    total_loss, total_hits, total_count = 0.0, 0, 0
    for start in range(0, len(test_tokens), chunk):
        loss, hits, count = output_loss_and_hits(model, test_tokens[start:start + chunk], triggers)
        total_loss += float(loss) * count
        total_hits += int(hits)
        total_count += count
    return total_loss / total_count, total_hits / total_count


def train_run(block: dict, layers: int, optimizer: str, seed: int, device: torch.device) -> pd.DataFrame:
    """One training run of slide 20's experiment: `block["steps"]` updates of the trained matrices on fresh
    batches, with the loss on the output tokens after a trigger's second and later occurrences. Every
    `record_every` steps (and at the last), one row: test loss and accuracy on `test_sequences` sequences drawn
    from the block's seed, and the probes. The task and embeddings come from `block["seed"]`; the batches and
    the initial weights from `seed`."""
    if optimizer not in block["optimizers"]:
        raise ValueError(f"optimizer {optimizer!r} is not configured; configured: {', '.join(block['optimizers'])}")
    task = trigger_bigrams(block)
    embeddings = frozen_embeddings(block)
    triggers = task.triggers.to(device)
    model = AttentionOnlyTransformer(embeddings, layers, generator(seed, INITIAL_WEIGHTS, block["d"])).to(device)
    targets = probe_targets(embeddings.to(device), task)
    test_tokens, _ = task.sample(generator(block["seed"], TEST_SET), block["test_sequences"], block["length"] + 1)
    test_tokens = test_tokens.to(device)
    batches = generator(seed, BATCHES)
    updates = make_optimizer(optimizer, block["optimizers"][optimizer], model.trained.values())
    rows, train_losses = [], []
    for step in range(block["steps"] + 1):
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
        updates.zero_grad()
        loss.backward()
        updates.step()
        train_losses.append(float(loss.detach()))
    curves = pd.DataFrame(rows)
    for key in ("vocabulary", "triggers", "length", "d"):
        curves[key] = block[key]
    return curves


def learned_step(steps: pd.Series, values: pd.Series, threshold: float) -> float:
    """The first recorded step at which a probe reaches `threshold`; NaN if it never does (or is not defined)."""
    reached = steps[values.to_numpy() >= threshold]
    return float(reached.iloc[0]) if len(reached) else float("nan")


def order_string(learned: dict[str, float]) -> str:
    """The probes by learned step, e.g. "W_OV² → W_KQ² → W_KQ¹"; probes learned at the same recorded step are
    joined by " = ", probes never learned are listed after "never:"."""
    rank = {column: index for index, column in enumerate(PROBED)}
    reached = sorted((step, rank[column], column) for column, step in learned.items() if np.isfinite(step))
    groups: list[list[str]] = []
    previous = None
    for step, _, column in reached:
        if step != previous:
            groups.append([])
            previous = step
        groups[-1].append(PROBED[column][1])
    text = " → ".join(" = ".join(group) for group in groups)
    never = [PROBED[column][1] for column, step in learned.items() if not np.isfinite(step)]
    return (text + ("; " if text else "") + "never: " + ", ".join(never)) if never else text


def learning_order(curves: pd.DataFrame, block: dict) -> pd.DataFrame:
    """Per (layers, optimizer, seed) run: the step at which each of its probes is learned (first recorded step
    with recall ≥ `learned_threshold`; NaN if never), the order string, and whether a 2-layer run shows slide
    20's order W_OV² < W_KQ² < W_KQ¹ strictly (NA for 1-layer runs)."""
    threshold = block["learned_threshold"]
    rows = []
    for (layers, optimizer, seed), run in curves.sort_values("step").groupby(["layers", "optimizer", "seed"], sort=True):
        present = [column for column in PROBED if run[column].notna().any()]
        learned = {column: learned_step(run["step"], run[column], threshold) for column in present}
        row = {"layers": layers, "optimizer": optimizer, "seed": seed, "threshold": threshold}
        row.update({column.replace("probe_", "learned_"): learned.get(column, np.nan) for column in PROBED})
        row["order"] = order_string(learned)
        if layers == 2:
            steps = [learned[column] for column in SLIDES_ORDER]
            row["matches_slides"] = bool(np.all(np.isfinite(steps)) and steps[0] < steps[1] < steps[2])
        else:
            row["matches_slides"] = pd.NA
        rows.append(row)
    table = pd.DataFrame(rows)
    table["matches_slides"] = table["matches_slides"].astype("boolean")
    return table
