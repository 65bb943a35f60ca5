"""Slide 15's bigrams with triggers, on one of two global bigram models π_b: a synthetic one, every row a
Dirichlet draw (`trigger_bigrams`, the block `memory.induction`), or the slides' own, π_b estimated from the
characters of Shakespeare's plays (`corpus_trigger_bigrams`, the block `memory.induction_shakespeare`, with the
table of `corpus.estimate_bigrams`); and the output positions whose next token the sequence fixes (slide 20's
loss)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from icdenoise.studies.memory.induction.corpus import bigram_arrays

BIGRAMS = 2  # purpose code of the bigram model's generator (independent of the embeddings', 1, and a run's, 3-5)
TRIGGERS = 6  # purpose code of the generator that draws a corpus task's triggers (`triggers_from: unigram`)


@dataclass(frozen=True)
class TriggerBigrams:
    """Slide 15's sequence model. Fixed trigger tokens q_1..q_K; per sequence, output tokens o_k ~ π_o; then
    z_1 ~ π_1 and z_t | z_{t−1} = i is o_k when i = q_k, else drawn from π_b(·|i).

    Our choices: π_b has i.i.d. Dirichlet(concentration) rows and π_1 is π_b's stationary distribution (the
    unigram, as Birth of a transformer takes π_1), or both are estimated from Shakespeare's characters
    (`corpus`); the triggers are the K most frequent tokens under π_1 (as Birth of a transformer fixes them);
    π_o is uniform over the non-trigger tokens, so no trigger maps to a trigger and no sequence is trapped in a
    deterministic loop. With `output_rows` (the slides' o_k ~ π_o(·|q_k) with π_o = π_b), o_k is drawn from
    π_b(·|q_k) restricted to the non-trigger tokens and renormalised."""

    transitions: torch.Tensor  # (N, N) float64; row i is π_b(·|i)
    initial: torch.Tensor      # (N,) float64; π_1
    triggers: torch.Tensor     # (K,) int64; q_1..q_K
    outputs: torch.Tensor      # (N − K,) int64; the support of π_o
    output_rows: torch.Tensor | None = None  # (K, N − K) float64: π_o(·|q_k) over `outputs`; None: uniform

    @property
    def vocabulary(self) -> int:
        return self.transitions.shape[0]

    def sample(self, rng: torch.Generator, sequences: int, length: int) -> tuple[torch.Tensor, torch.Tensor]:
        """`sequences` sequences of `length` tokens, as a (sequences, length) int64 tensor, and their outputs
        o_1..o_K as a (sequences, K) int64 tensor. Draws by inverse CDF from one block of uniforms."""
        triggers = self.triggers
        if self.output_rows is None:
            outputs = self.outputs[torch.randint(len(self.outputs), (sequences, len(triggers)), generator=rng)]
        else:
            outputs = self.outputs[torch.multinomial(self.output_rows, sequences, replacement=True, generator=rng).T]
        uniforms = torch.rand(length, sequences, generator=rng, dtype=torch.float64).numpy()  # row t: one per sequence
        forced = np.full((sequences, self.vocabulary), -1, dtype=np.int64)
        forced[:, triggers.numpy()] = outputs.numpy()  # forced[b, i] = o_k if i = q_k, else −1
        bigram_cdf = torch.cumsum(self.transitions, dim=1).numpy()
        last, rows = self.vocabulary - 1, np.arange(sequences)
        tokens = np.empty((sequences, length), dtype=np.int64)
        tokens[:, 0] = np.minimum(np.searchsorted(torch.cumsum(self.initial, 0).numpy(), uniforms[0], side="right"), last)
        for t in range(1, length):
            previous = tokens[:, t - 1]
            bigram = np.minimum((bigram_cdf[previous] <= uniforms[t, :, None]).sum(axis=1), last)  # searchsorted, right
            fixed = forced[rows, previous]
            tokens[:, t] = np.where(fixed >= 0, fixed, bigram)
        tokens = torch.from_numpy(tokens)
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
    return with_triggers(transitions, initial, triggers, block["outputs_from"])


def with_triggers(transitions: np.ndarray, initial: np.ndarray, triggers: np.ndarray, outputs_from: str) -> TriggerBigrams:
    """The task on π_b = `transitions`, π_1 = `initial` and the sorted `triggers`: the outputs are the other
    tokens, drawn uniformly (`outputs_from: uniform`) or from π_b(·|q_k) restricted to them (`bigram`)."""
    outputs = np.setdiff1d(np.arange(len(transitions)), triggers)
    output_rows = None
    if outputs_from == "bigram":
        rows = transitions[np.ix_(triggers, outputs)]
        if (rows.sum(axis=1) <= 0).any():
            raise ValueError("outputs_from bigram: a trigger is never followed by a non-trigger token under π_b")
        output_rows = torch.from_numpy(rows / rows.sum(axis=1, keepdims=True))
    elif outputs_from != "uniform":
        raise ValueError(f"outputs_from {outputs_from!r}; allowed: uniform, bigram")
    return TriggerBigrams(torch.from_numpy(transitions), torch.from_numpy(initial), torch.from_numpy(triggers),
                          torch.from_numpy(outputs), output_rows)


def corpus_trigger_bigrams(block: dict, transitions: np.ndarray, initial: np.ndarray) -> TriggerBigrams:
    """The task on an estimated π_b (`transitions`) and π_1 (`initial`), e.g. Shakespeare's characters
    (`corpus.bigram_arrays`): the K = `block["triggers"]` triggers are the K most frequent tokens under π_1
    (`triggers_from: most_frequent`, ties to the smaller index) or K distinct draws from π_1 with the block's seed
    (`unigram`); the outputs as `with_triggers` draws them."""
    vocabulary, trigger_count = len(transitions), block["triggers"]
    if not 1 <= trigger_count <= vocabulary - 2:
        raise ValueError(f"triggers = {trigger_count} must lie in [1, vocabulary − 2 = {vocabulary - 2}] (the corpus has "
                         f"{vocabulary} tokens)")
    if block["triggers_from"] == "most_frequent":
        triggers = np.sort(np.argsort(-initial, kind="stable")[:trigger_count])
    elif block["triggers_from"] == "unigram":
        rng = np.random.default_rng([block["seed"], TRIGGERS])
        triggers = np.sort(rng.choice(vocabulary, size=trigger_count, replace=False, p=initial))
    else:
        raise ValueError(f"triggers_from {block['triggers_from']!r}; allowed: most_frequent, unigram")
    return with_triggers(transitions, initial, triggers, block["outputs_from"])


def block_task(block: dict, bigrams: pd.DataFrame | None = None) -> tuple[dict, TriggerBigrams]:
    """The block with its `vocabulary` and its task: the synthetic chain of `trigger_bigrams`, or, given the table of
    `corpus.estimate_bigrams`, the corpus's π_b and π_1 (`corpus_trigger_bigrams`), N being the corpus's."""
    if bigrams is None:
        return block, trigger_bigrams(block)
    _, transitions, initial = bigram_arrays(bigrams)
    return {**block, "vocabulary": len(transitions)}, corpus_trigger_bigrams(block, transitions, initial)


def output_positions(tokens: torch.Tensor, triggers: torch.Tensor) -> torch.Tensor:
    """(B, T) bool: position t holds a trigger that already occurred before t, so z_{t+1} is its output o_k, fixed
    by the sequence (slide 20: "loss on deterministic output tokens only")."""
    is_trigger = tokens[..., None] == triggers  # [b, t, k]: z_t = q_k
    occurrences = torch.cumsum(is_trigger, dim=1)  # [b, t, k] = #{s ≤ t: z_s = q_k}
    return (is_trigger & (occurrences >= 2)).any(dim=2)
