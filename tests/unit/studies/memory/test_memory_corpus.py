"""The Shakespeare corpus of the induction head (slide 15's π_b "estimated from Karpathy's character-level
Shakespeare"; the plays and their clean-up are icdenoise.maths.corpora's, tests/unit/maths/test_corpora.py): π_b and
π_1 against an independent count of a small text's character bigrams, the installed plays, the task drawn on an estimated π_b
(its triggers, its outputs, its transitions by counts), and the claims that read its runs."""

from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch
import yaml

from icdenoise.studies.memory.embeddings import generator
from icdenoise.studies.memory.induction import block_task, corpus_trigger_bigrams, train_run
from icdenoise.maths.corpora import clean_play, play_files, restrict, vocabulary
from icdenoise.studies.memory.induction.corpus import bigram_arrays, bigram_counts, bigram_table, estimate_bigrams

SHAKESPEARE = {"triggers": 2, "triggers_from": "most_frequent", "outputs_from": "uniform", "length": 24, "d": 32,
               "layers": [2], "optimizers": {"adam": {"learning_rate": 0.02}}, "steps": 20, "batch": 16,
               "record_every": 10, "test_sequences": 32, "learned_threshold": 0.9, "rank_threshold": 0.99, "seed": 3,
               "seeds": [0], "corpus": {"plays": ["macbeth"], "lowercase": False, "min_count": 100}}


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


def test_the_installed_package_ships_the_plays_and_macbeth_cleans_to_tiny_shakespeares_layout():
    files = play_files()
    assert len(files) == 38 and {"hamlet", "macbeth", "edward-iii"} <= set(files)
    with pytest.raises(ValueError, match="no play hamlet-ii"):
        play_files(["hamlet-ii"])
    text = clean_play(files["macbeth"].read_text(encoding="utf-8"))
    assert text.startswith("First Witch:\nWhen shall we three meet again\nIn thunder, lightning, or in rain?\n\nSecond Witch:\n")
    assert not set("#*_[]") & set(text)
    table = estimate_bigrams(SHAKESPEARE["corpus"])
    characters, transitions, initial = bigram_arrays(table)
    kept = restrict(text, characters)
    np.testing.assert_array_equal(table["count"].to_numpy().reshape(transitions.shape), independent_counts([kept], characters))
    np.testing.assert_allclose(transitions.sum(axis=1), 1.0)
    assert characters[int(np.argmax(initial))] == " "


def test_the_triggers_are_the_most_frequent_characters_or_drawn_from_the_unigram():
    transitions = np.full((6, 6), 1 / 6)
    initial = np.array([0.05, 0.3, 0.1, 0.3, 0.05, 0.2])
    task = corpus_trigger_bigrams(SHAKESPEARE, transitions, initial)
    assert task.triggers.tolist() == [1, 3] and task.outputs.tolist() == [0, 2, 4, 5]
    drawn = corpus_trigger_bigrams(dict(SHAKESPEARE, triggers_from="unigram", triggers=3), transitions, initial)
    assert len(set(drawn.triggers.tolist())) == 3 and set(drawn.outputs.tolist()) == set(range(6)) - set(drawn.triggers.tolist())
    same = corpus_trigger_bigrams(dict(SHAKESPEARE, triggers_from="unigram", triggers=3), transitions, initial)
    assert torch.equal(drawn.triggers, same.triggers)  # from the block's seed
    with pytest.raises(ValueError, match="vocabulary − 2 = 4"):
        corpus_trigger_bigrams(dict(SHAKESPEARE, triggers=5), transitions, initial)
    with pytest.raises(ValueError, match="most_frequent, unigram"):
        corpus_trigger_bigrams(dict(SHAKESPEARE, triggers_from="zipf"), transitions, initial)


def test_a_corpus_task_follows_its_estimated_bigrams_away_from_the_triggers():
    """On a small text's π_b: after a trigger its sequence's output, elsewhere the empirical transitions match π_b
    (binomial 5σ), and a bigram never seen in the text is never drawn."""
    texts = ["the cat sat on\nthe mat and the rat ate the hat", "a bat at\na tea"]
    characters = vocabulary(texts, 1)
    table = bigram_table(bigram_counts(texts, characters), characters)
    block, task = block_task(dict(SHAKESPEARE, triggers=1), table)
    assert block["vocabulary"] == len(characters) and characters[int(task.triggers[0])] == " "
    tokens, outputs = task.sample(generator(5), 3000, 30)
    previous, following = tokens[:, :-1], tokens[:, 1:]
    after_trigger = previous == task.triggers[0]
    assert torch.equal(following[after_trigger], outputs[:, 0, None].expand_as(following)[after_trigger])
    counts = np.zeros(task.transitions.shape)
    np.add.at(counts, (previous[~after_trigger].numpy(), following[~after_trigger].numpy()), 1)
    transitions = task.transitions.numpy()
    assert counts[transitions == 0].sum() == 0
    for i in np.flatnonzero(counts.sum(axis=1) > 200):
        total = counts[i].sum()
        spread = np.sqrt(total * transitions[i] * (1 - transitions[i])) + 1
        assert np.all(np.abs(counts[i] - total * transitions[i]) < 5 * spread)


def test_a_run_on_the_estimated_bigrams_records_the_corpus_vocabulary():
    table = estimate_bigrams(SHAKESPEARE["corpus"])
    curve = train_run(SHAKESPEARE, 2, "adam", 0, torch.device("cpu"), table)
    assert isinstance(curve, pd.DataFrame) and curve["step"].tolist() == [0, 10, 20]
    assert (curve["vocabulary"] == table["previous"].max() + 1).all() and curve["accuracy"].between(0, 1).all()


def test_the_shakespeare_claims_read_the_shakespeare_runs_and_supersede_the_synthetic_settings():
    from icdenoise.studies.memory.claims import CLAIMS, SHAKESPEARE_CLAIMS

    def runs(accuracy, steps):
        curves = pd.DataFrame([{"layers": 2, "optimizer": "sgd", "seed": seed, "step": step, "accuracy": accuracy}
                               for seed in (0, 1) for step in (0, 10)])
        order = pd.DataFrame([{"layers": 2, "optimizer": "sgd", "seed": seed, "rank_learned_wov2": steps[0],
                               "rank_learned_wkq2": steps[1], "rank_learned_wkq1": steps[2]} for seed in (0, 1)])
        return curves, order

    synthetic, synthetic_order = runs(0.5, (10, 10, 20))  # a tie: the order broken
    shakespeare, shakespeare_order = runs(1.0, (10, 20, 30))
    frames = {"induction": synthetic, "induction_order": synthetic_order, "induction_shakespeare": shakespeare,
              "induction_shakespeare_order": shakespeare_order}
    assert list(CLAIMS["induction_two_layer_sgd_accuracy"].measure(frames, {})) == [0.5, 0.5]
    assert list(CLAIMS["induction_two_layer_sgd_accuracy_shakespeare"].measure(frames, {})) == [1.0, 1.0]
    assert list(CLAIMS["induction_probe_order_sgd_every_seed"].measure(frames, {}).values) == [0.0, 0.0]
    assert list(CLAIMS["induction_probe_order_sgd_every_seed_shakespeare"].measure(frames, {}).values) == [1.0, 1.0]
    with pytest.raises(KeyError):  # without its own tables a Shakespeare claim reads nothing, not the synthetic runs
        CLAIMS["induction_two_layer_sgd_accuracy_shakespeare"].measure({"induction": synthetic}, {})
    config = yaml.safe_load((Path(__file__).parents[4] / "config" / "config.yaml").read_text())["memory"]["claims"]
    for name, (original, _) in SHAKESPEARE_CLAIMS.items():
        assert config[original]["superseded_by"] == name and "exploratory" not in config[name]
        assert {key: config[name][key] for key in ("paper_value", "comparison", "tolerance", "inconclusive")} \
            == {key: config[original][key] for key in ("paper_value", "comparison", "tolerance", "inconclusive")}
