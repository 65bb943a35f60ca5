"""The scaled language-modelling run (Wang et al. 2025, Sec. 4.2.1, Fig. 5, Tables 3-4): the corpus's split,
vocabulary and windows, the unigram loss against a count, the models' parameter counts against the closed form and
Table 4's matching rule, causality, no MLP in the attention-only models, AdamW against torch's, the learning-rate
schedule, a run stopped and resumed bit for bit, and the claims' measures and their rule `unigram`."""

import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest
import torch

from icdenoise.studies.mssa.language import (
    AdamW,
    build_language_model,
    closed_form_parameters,
    decayed_parameters,
    learning_rate_at,
    matched_width,
    model_sizes,
    parameter_table,
    run_language_model,
)
from icdenoise.studies.mssa.language_corpus import (
    LanguageCorpus,
    corpus_table,
    training_windows,
    unigram_loss,
    validation_windows,
)
from icdenoise.studies.mssa.transformers import ARCHITECTURES, parameter_count

TABLE = pd.DataFrame({"play": ["b-play", "a-play", "held"], "split": ["train", "train", "validation"],
                      "text": ["to be, or not to be\n\nthat is", "the question: ay, there", "is the rub!~ to be"]})
BLOCK = {"scale": "scaled", "lowercase": False, "min_count": 2, "validation_plays": ["held"], "context": 8, "head_width": 4,
         "models": {"mssa": {"layers": 2}, "mhsa": {"layers": 2}, "transformer": {"layers": 1, "width": 8}},
         "steps": 7, "batch": 3, "learning_rate": 0.01, "warmup": 2, "final_lr_fraction": 0.1, "weight_decay": 0.1,
         "betas": [0.9, 0.99], "clip": 1.0, "record_every": 3, "validation_windows": 4, "seeds": [0]}


# the corpus


def test_the_vocabulary_comes_from_the_training_plays_and_both_splits_are_restricted_to_it():
    corpus = LanguageCorpus.from_table(TABLE, min_count=2)
    train_text = "the question: ay, there\n\nto be, or not to be\n\nthat is"  # name order, joined by a blank line
    counts = Counter(train_text)
    assert corpus.characters == sorted(c for c, n in counts.items() if n >= 2)
    decode = lambda codes: "".join(corpus.characters[i] for i in codes)  # noqa: E731
    assert decode(corpus.train) == "".join(c for c in train_text if counts[c] >= 2)
    assert decode(corpus.validation) == "is the rb to be"  # 'u', '!' and '~' are rare in the training plays: deleted
    again = LanguageCorpus.from_table(TABLE.sample(frac=1.0, random_state=1), min_count=2)  # any row order
    assert again.characters == corpus.characters and np.array_equal(again.train, corpus.train)
    assert np.array_equal(again.validation, corpus.validation)


def test_the_split_holds_out_whole_plays_and_refuses_unknown_ones():
    table = corpus_table({"lowercase": False, "validation_plays": ["the-tempest", "julius-caesar"]})
    assert len(table) == 38 and set(table.loc[table["split"] == "validation", "play"]) == {"the-tempest", "julius-caesar"}
    assert (table["characters"] == table["text"].str.len()).all()
    with pytest.raises(ValueError, match="no play hamlet-ii"):
        corpus_table({"lowercase": False, "validation_plays": ["hamlet-ii"]})


def test_training_windows_depend_on_the_seed_and_step_alone_and_validation_windows_are_evenly_spaced():
    codes = np.arange(100)
    first = training_windows(codes, 5, 8, seed=3, step=4)
    assert first.shape == (5, 9) and (np.diff(first, axis=1) == 1).all() and first.max() <= 99
    assert np.array_equal(first, training_windows(codes, 5, 8, seed=3, step=4))
    assert not np.array_equal(first, training_windows(codes, 5, 8, seed=3, step=5))
    windows = validation_windows(codes, 4, 8)
    assert windows[:, 0].tolist() == [0, 30, 61, 91] and windows[-1, -1] == 99


def test_the_unigram_loss_is_the_cross_entropy_under_the_training_frequencies():
    corpus = LanguageCorpus.from_table(TABLE, min_count=2)
    windows = validation_windows(corpus.validation, 3, 4)
    counts = Counter(corpus.train.tolist())
    expected = np.mean([-math.log(counts[c] / len(corpus.train)) for row in windows for c in row[1:]])
    assert unigram_loss(corpus, windows) == pytest.approx(expected, rel=1e-12)


# the models


@pytest.mark.parametrize("architecture", ARCHITECTURES)
@pytest.mark.parametrize("width, layers", [(8, 1), (12, 3)])
def test_the_closed_form_counts_every_parameter_of_the_model(architecture, width, layers):
    model = build_language_model(architecture, vocabulary=11, context=7, width=width, heads=2, layers=layers, seed=0)
    counted = sum(p.numel() for p in model.parameters())  # tied read-out: the embedding once
    assert parameter_count(model) == counted == closed_form_parameters(architecture, layers, width, 11, 7)
    assert model.has_mlp() == (architecture == "transformer")
    assert not any(isinstance(m, torch.nn.Linear) and m.out_features == 4 * width for m in model.modules()) or architecture == "transformer"


def test_the_attention_only_widths_are_the_multiples_of_the_head_width_nearest_the_transformers_count():
    target = closed_form_parameters("transformer", 2, 64, 62, 32)
    for architecture in ("mssa", "mhsa"):
        width = matched_width(architecture, 4, target, 16, 62, 32)
        gaps = {w: abs(closed_form_parameters(architecture, 4, w, 62, 32) - target) for w in range(16, 1025, 16)}
        assert width % 16 == 0 and gaps[width] == min(gaps.values())
    sizes = model_sizes({"models": {"mssa": {"layers": 4}, "mhsa": {"layers": 4}, "transformer": {"layers": 2, "width": 64}},
                         "head_width": 16, "context": 32}, 62)
    assert sizes == {"mssa": {"layers": 4, "width": 112, "heads": 7}, "mhsa": {"layers": 4, "width": 80, "heads": 5},
                     "transformer": {"layers": 2, "width": 64, "heads": 4}}


@pytest.mark.parametrize("architecture", ARCHITECTURES)
def test_a_later_character_does_not_change_an_earlier_output(architecture):
    model = build_language_model(architecture, vocabulary=11, context=9, width=8, heads=2, layers=2, seed=1).eval()
    codes = torch.randint(0, 11, (3, 9), generator=torch.Generator().manual_seed(0))
    changed = codes.clone()
    changed[:, 6] = (changed[:, 6] + 1) % 11
    with torch.no_grad():
        before, after = model(codes), model(changed)
    assert torch.equal(before[:, :6], after[:, :6])
    assert not torch.allclose(before[:, 6:], after[:, 6:])


def test_the_initialisation_follows_the_seed():
    one, same, other = (build_language_model("mhsa", 11, 7, 8, 2, 2, seed) for seed in (3, 3, 4))
    assert all(torch.equal(a, b) for a, b in zip(one.parameters(), same.parameters()))
    assert not torch.equal(one.tokens.weight, other.tokens.weight)


# training


def test_adamw_is_torchs_adamw_with_decay_on_the_matrices_only():
    model = build_language_model("transformer", 11, 7, 8, 2, 1, seed=0)
    reference = build_language_model("transformer", 11, 7, 8, 2, 1, seed=0)
    decayed = decayed_parameters(model)
    assert {p.dim() for p in decayed} == {2} and len(decayed) < len(list(model.parameters()))
    mine = AdamW(model.parameters(), decayed, lr=0.01, weight_decay=0.1, betas=(0.9, 0.99))
    theirs = torch.optim.AdamW([{"params": decayed_parameters(reference), "weight_decay": 0.1},
                                {"params": [p for p in reference.parameters() if p.dim() < 2], "weight_decay": 0.0}],
                               lr=0.01, betas=(0.9, 0.99), foreach=False)
    codes = torch.randint(0, 11, (4, 8), generator=torch.Generator().manual_seed(0))
    for step in range(4):
        for optimiser, net in ((mine, model), (theirs, reference)):
            rate = 0.01 * (step + 1) / 4
            if optimiser is mine:
                optimiser.lr = rate
            else:
                for group in optimiser.param_groups:
                    group["lr"] = rate
            optimiser.zero_grad()
            torch.nn.functional.cross_entropy(net(codes[:, :-1]).reshape(-1, 11), codes[:, 1:].reshape(-1)).backward()
            optimiser.step()
    for a, b in zip(model.parameters(), reference.parameters()):
        assert torch.equal(a, b)


def test_the_learning_rate_warms_up_then_follows_a_cosine_to_its_floor():
    block = {"learning_rate": 1.0, "warmup": 4, "steps": 13, "final_lr_fraction": 0.1}
    rates = [learning_rate_at(step, block) for step in range(13)]
    assert rates[:4] == [0.25, 0.5, 0.75, 1.0]
    assert rates[4] == 1.0 and rates[-1] == pytest.approx(0.1) and rates[8] == pytest.approx(0.55)  # halfway: the mean
    assert all(a >= b for a, b in zip(rates[3:], rates[4:]))


def run(checkpoint=None):
    return run_language_model(TABLE, BLOCK, "mssa", seed=2, checkpoint=checkpoint)


def test_a_run_records_the_mean_training_loss_since_the_last_record_and_the_validation_loss():
    curve, final = run()
    assert curve["step"].tolist() == [3, 6, 7] and (curve["model"] == "mssa").all() and (curve["seed"] == 2).all()
    assert np.isfinite(curve[["train_loss", "val_loss"]].to_numpy()).all()
    assert final["val_loss"].item() == curve["val_loss"].iloc[-1] and final["steps"].item() == 7
    assert final["parameters"].item() == final["parameters_closed_form"].item() and not final["has_mlp"].item()
    again, _ = run()
    pd.testing.assert_frame_equal(curve, again, check_exact=True)


def test_a_run_stopped_at_every_step_and_resumed_gives_the_uninterrupted_curve():
    """Stopped by a spent time budget at every step it can save at, each time continued by a new start: the curve (every
    loss, to the bit) equals that of a run that never stopped, and no checkpoint is left."""
    from icdenoise.pipeline.checkpoints import Checkpoint, Stopped

    reference = run()
    stops = 0
    path = None
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "run.checkpoint"
        while True:
            checkpoint = Checkpoint(path, {"run": "test"}, every_s=None, budget_s=0.0)
            try:
                resumed = run(checkpoint)
            except Stopped:
                checkpoint.close()
                stops += 1
                continue
            checkpoint.finish()
            break
        assert not path.exists()
    assert stops == BLOCK["steps"] - 1
    pd.testing.assert_frame_equal(resumed[0], reference[0], check_exact=True)
    pd.testing.assert_frame_equal(resumed[1], reference[1], check_exact=True)


# tables and claims


def final_rows(losses: dict, unigram: float = 3.0) -> pd.DataFrame:
    return pd.DataFrame([{"model": model, "seed": seed, "val_loss": loss, "unigram_loss": unigram}
                         for model, values in losses.items() for seed, loss in enumerate(values)])


def test_the_comparable_claims_read_the_per_seed_ratio_with_a_bootstrap_over_seeds():
    from icdenoise.records.claims import undecided_because
    from icdenoise.studies.mssa.claims import CLAIMS

    claim = CLAIMS["fig5_mssa_val_loss_comparable_to_gpt2"]
    spec = {"model": "mssa", "versus": "transformer", "unigram_fraction": 0.95, "inconclusive": ["unigram"],
            "paper_value": 1.0, "comparison": "at_most", "tolerance": 0.126}
    frames = {"language": final_rows({"mssa": [2.2, 2.4, 2.3], "transformer": [2.0, 2.0, 2.3]})}
    measured = claim.measure(frames, spec)
    np.testing.assert_allclose(measured.values, [1.1, 1.2, 1.0])
    assert measured.interval[0] >= 1.0 and measured.interval[1] <= 1.2 and "bootstrap over 3 seeds" == measured.method
    assert undecided_because(claim, measured, frames, spec) == ""
    stuck = {"language": final_rows({"mssa": [2.9, 2.9, 2.95], "transformer": [2.0, 2.0, 2.3]})}
    assert "the mssa's final validation loss is 0.972 of the unigram loss" in undecided_because(claim, claim.measure(stuck, spec), stuck, spec)


def test_the_mlp_measurement_is_the_ratio_of_mean_recorded_training_losses():
    from icdenoise.studies.mssa.claims import CLAIMS

    curves = pd.DataFrame([{"model": model, "seed": seed, "step": step, "train_loss": loss}
                           for model, losses in {"mhsa": [3.0, 2.0], "transformer": [2.0, 1.0]}.items()
                           for seed in (0, 1) for step, loss in zip((10, 20), losses)])
    measured = CLAIMS["fig5_mlp_accelerates_training_measured"].measure({"language_curves": curves}, {"model": "mhsa", "versus": "transformer"})
    np.testing.assert_allclose(measured.values, [2.5 / 1.5, 2.5 / 1.5])


def test_the_parameter_table_has_a_row_per_model_beside_table_4():
    final = pd.DataFrame([{"model": model, "seed": seed, "layers": 2, "width": 8, "heads": 2, "parameters": count,
                           "parameters_closed_form": count, "has_mlp": model == "transformer", "vocabulary": 11, "context": 7}
                          for model, count in (("mssa", 90), ("transformer", 100)) for seed in (0, 1)])
    table = parameter_table(final)
    assert table["model"].tolist() == ["mssa", "transformer"] and table["ratio_to_transformer"].tolist() == [0.9, 1.0]
    assert table["table4_parameters"].tolist() == [102e6, 124e6] and table["table4_layers"].tolist() == [24, 12]
