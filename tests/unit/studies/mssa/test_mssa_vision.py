"""The mssa study's vision part (icdenoise.studies.mssa.vision): the digits as patch tokens, the three models, their
training and its checkpoints, and the vision claims' measures."""

import builtins
import math

import numpy as np
import pandas as pd
import pytest
import torch
from torch.nn import functional as F

from helpers import stopped_at_every_save_point
from icdenoise.studies.mssa import claims as mssa_claims
from icdenoise.studies.mssa.transformers import parameter_count
from icdenoise.studies.mssa.vision import (
    CLASSES,
    attention_image_rows,
    attention_table,
    build_classifier,
    digit_images,
    digit_tensors,
    images_of,
    minibatch,
    patchify,
    penultimate,
    split_table,
    stratified_split,
    train_classifier,
    unpatchify,
)

# data


def test_the_digits_are_1797_images_of_8_by_8_pixels_in_0_1():
    images, labels = digit_images()
    assert images.shape == (1797, 8, 8) and labels.shape == (1797,)
    assert images.min() == 0 and images.max() == 1 and set(np.unique(labels)) == set(range(10))
    assert np.allclose(images * 16, np.round(images * 16))  # integers 0..16 divided by 16


def test_a_missing_scikit_learn_names_the_package_and_the_install(monkeypatch):
    real_import = builtins.__import__

    def without_sklearn(name, *args, **kwargs):
        if name.startswith("sklearn"):
            raise ModuleNotFoundError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", without_sklearn)
    with pytest.raises(ModuleNotFoundError, match=r"scikit-learn.*pip install scikit-learn"):
        digit_images()


def test_the_split_is_stratified_fixed_by_its_seed_and_changes_with_it():
    _, labels = digit_images()
    test = stratified_split(labels, 0.25, 0)
    for label in range(10):
        assert test[labels == label].sum() == round(0.25 * (labels == label).sum())
    assert np.array_equal(test, stratified_split(labels, 0.25, 0))
    assert not np.array_equal(test, stratified_split(labels, 0.25, 1))
    table = split_table(0.25, 0)
    assert (table["split"] == "test").sum() == test.sum() == 450 and list(table["image"]) == list(range(1797))
    assert np.array_equal(images_of(table), digit_images()[0].astype(np.float32))


@pytest.mark.parametrize("patch", [1, 2, 4, 8])
def test_patches_reassemble_the_image_and_are_the_image_blocks_row_major(patch):
    images = np.random.default_rng(0).random((3, 8, 8))
    tokens = patchify(images, patch)
    grid = 8 // patch
    assert tokens.shape == (3, grid * grid, patch * patch)
    assert np.array_equal(unpatchify(tokens, patch, 8, 8), images)
    for index in range(grid * grid):  # token k is the block in row k // grid, column k % grid, its pixels row-major
        row, column = divmod(index, grid)
        assert np.array_equal(tokens[:, index], images[:, row * patch : (row + 1) * patch, column * patch : (column + 1) * patch].reshape(3, -1))
    assert np.array_equal(patchify(torch.from_numpy(images), patch).numpy(), tokens)  # the tensor form is the same


def test_figure_7s_images_are_the_first_test_image_of_each_digit():
    table = split_table(0.25, 0)
    shown = attention_image_rows(table, [7, 0])
    assert list(shown["label"]) == [7, 0]
    for _, row in shown.iterrows():
        test = table[(table["split"] == "test") & (table["label"] == row["label"])]
        assert row["image"] == test["image"].min()


# models


def independent_count(architecture: str, width: int, layers: int, patch_pixels: int = 4, patches: int = 16) -> int:
    """Parameters written out: patch embedding P·D + D, class token D, positions (N + 1)·D, final LayerNorm 2D, head
    10·D + 10; a layer: LayerNorm 2D plus 2D² (MSSA: U and W_O), 4D² (MHSA: W_Q, W_K, W_V, W_O), or 4D² + LayerNorm 2D
    + MLP 4D·D + 4D + 4D·D + D (ViT)."""
    d = width
    outside = patch_pixels * d + d + d + (patches + 1) * d + 2 * d + CLASSES * d + CLASSES
    layer = {"mssa": 2 * d * d + 2 * d, "mhsa": 4 * d * d + 2 * d, "vit": 4 * d * d + 2 * d + 2 * d + 8 * d * d + 5 * d}[architecture]
    return outside + layers * layer


@pytest.mark.parametrize("architecture,layers", [("mssa", 4), ("mhsa", 4), ("vit", 2), ("vit", 3)])
def test_parameter_counts_equal_the_written_out_count(architecture, layers):
    model = build_classifier(architecture, 2, 8, 32, 4, layers, seed=0)
    assert parameter_count(model) == independent_count(architecture, 32, layers)


def test_twice_the_depth_gives_table_2s_parameter_ratio_at_the_config_width():
    """AoT-MHSA-V over the ViT at twice its depth: near Table 2's 15M/22M = 0.68; AoT-MSSA-V about half of that."""
    vit = parameter_count(build_classifier("vit", 2, 8, 32, 4, 2, seed=0))
    assert parameter_count(build_classifier("mhsa", 2, 8, 32, 4, 4, seed=0)) / vit == pytest.approx(15 / 22, abs=0.01)
    assert parameter_count(build_classifier("mssa", 2, 8, 32, 4, 4, seed=0)) / vit < 0.4


@pytest.mark.parametrize("architecture", ["mssa", "mhsa"])
def test_the_attention_only_models_have_no_mlp(architecture):
    model = build_classifier(architecture, 2, 8, 16, 2, 3, seed=0)
    assert not any(isinstance(module, (torch.nn.GELU, torch.nn.Sequential)) for module in model.modules())
    for block in model.blocks:  # each block: a LayerNorm and the attention's bias-free projections, nothing else
        linear = [module for module in block.modules() if isinstance(module, torch.nn.Linear)]
        assert all(module.bias is None for module in linear) and len(linear) == 2


def test_the_vit_has_an_mlp_in_every_block():
    model = build_classifier("vit", 2, 8, 16, 2, 2, seed=0)
    assert sum(isinstance(module, torch.nn.GELU) for module in model.modules()) == 2


@pytest.mark.parametrize("architecture", ["mssa", "mhsa", "vit"])
def test_attention_rows_sum_to_one_and_the_layer_is_the_written_out_attention(architecture):
    model = build_classifier(architecture, 2, 8, 16, 4, 3, seed=1)
    patches = patchify(torch.rand(5, 8, 8), 2)
    weights = model.class_attention(patches, penultimate(3))
    assert weights.shape == (5, 4, 17) and (weights >= 0).all()
    assert torch.allclose(weights.sum(-1), torch.ones(5, 4), atol=1e-6)
    attention = model.blocks[0].attention
    tokens = torch.randn(5, 17, 16)
    if architecture == "mssa":  # eq. 4: U_kᵀZ as query, key and value
        queries = keys = values = attention.subspaces(tokens).view(5, 17, 4, 4).transpose(1, 2)
    else:
        queries, keys, values = (part.view(5, 17, 4, 4).transpose(1, 2) for part in attention.queries_keys_values(tokens).chunk(3, -1))
    expected = attention.output(F.scaled_dot_product_attention(queries, keys, values).transpose(1, 2).reshape(5, 17, 16))
    assert torch.allclose(attention(tokens), expected, atol=1e-6)  # bidirectional: no causal mask


def test_the_class_attention_is_the_class_tokens_row_of_the_penultimate_layer():
    model = build_classifier("mssa", 2, 8, 16, 4, 3, seed=2)
    patches = patchify(torch.rand(2, 8, 8), 2)
    tokens = model.blocks[0](model.embed(patches))  # the input of block 1 (0-based), the penultimate of 3
    block = model.blocks[1]
    projected = block.attention.subspaces(block.norm(tokens)).view(2, 17, 4, 4).transpose(1, 2)
    expected = torch.softmax(projected @ projected.transpose(-2, -1) / 2.0, dim=-1)[:, :, 0]
    assert torch.allclose(model.class_attention(patches, 1), expected, atol=1e-6)
    table = attention_table(model, patches, pd.DataFrame({"image": [10, 11], "label": [3, 4]}), 2, 1)
    assert len(table) == 2 * 4 * 16 and set(table["patch_row"]) == set(range(4)) == set(table["patch_col"])
    sums = table.groupby(["image", "head"])["weight"].sum() + table.groupby(["image", "head"])["class_self"].first()
    assert np.allclose(sums, 1, atol=1e-6)


def test_the_penultimate_layer_needs_two():
    assert penultimate(4) == 2
    with pytest.raises(ValueError, match="no penultimate"):
        penultimate(1)


# training


def test_each_epoch_visits_every_training_image_once():
    batches = [minibatch(100, 32, seed=3, step=step) for step in range(3)]  # 3 whole batches an epoch, 4 images unused
    seen = np.concatenate(batches)
    assert len(set(seen)) == 96 and seen.max() < 100
    assert np.array_equal(minibatch(100, 32, 3, 3), np.random.default_rng([3, 1]).permutation(100)[:32])


def small_data():
    table = split_table(0.25, 0)
    parts = {}
    for part in ("train", "test"):
        parts[part] = digit_tensors(table[table["split"] == part].head(120), 2)
    return parts["train"], parts["test"]


def trained(checkpoint=None, steps=9):
    model = build_classifier("mssa", 2, 8, 8, 2, 2, seed=4)
    train, test = small_data()
    curve = train_classifier(model, train, test, steps, 16, 0.01, seed=4, record_every=3, checkpoint=checkpoint)
    return curve, {name: value.clone() for name, value in model.state_dict().items()}


def test_training_records_its_curve_and_is_deterministic():
    curve, weights = trained()
    assert list(curve["step"]) == [0, 3, 6, 8] and list(curve.columns) == ["step", "loss", "test_accuracy"]
    assert curve["loss"].iloc[0] == pytest.approx(math.log(CLASSES), rel=0.2)
    again, weights_again = trained()
    pd.testing.assert_frame_equal(curve, again, check_exact=True)
    assert all(torch.equal(weights[name], weights_again[name]) for name in weights)


def test_a_run_stopped_at_every_save_point_and_resumed_gives_the_uninterrupted_curve_and_weights(tmp_path):
    reference = trained()
    path = tmp_path / "run.checkpoint"
    resumed, stops = stopped_at_every_save_point(lambda checkpoint: trained(checkpoint), path)
    assert stops == list(range(1, 9))
    pd.testing.assert_frame_equal(resumed[0], reference[0], check_exact=True)
    for name, tensor in reference[1].items():
        assert torch.equal(resumed[1][name], tensor), name


# claims


def vision_frame(accuracies: dict[str, list[float]], parameters: dict[str, int]) -> dict[str, pd.DataFrame]:
    rows = [{"model": model, "seed": seed, "test_accuracy": value, "parameters": parameters[model]}
            for model, values in accuracies.items() for seed, value in enumerate(values)]
    return {"vision": pd.DataFrame(rows)}


def test_the_accuracy_ratio_pairs_seeds_and_bootstraps_over_them():
    frames = vision_frame({"mhsa": [0.9, 0.8, 0.95], "vit": [1.0, 0.8, 0.95]}, {"mhsa": 1, "vit": 2})
    measured = mssa_claims._accuracy_ratio(frames, {"model": "mhsa", "versus": "vit"})
    assert np.allclose(measured.values, [0.9, 1.0, 1.0])
    low, high = measured.interval
    assert 0.9 <= low <= measured.values.mean() <= high <= 1.0


def test_the_vision_rules_fire_near_chance_and_without_fewer_parameters():
    spec = {"model": "mhsa", "versus": "vit", "near_chance": 0.2}
    learned = vision_frame({"mhsa": [0.9, 0.9], "vit": [0.95, 0.96]}, {"mhsa": 1, "vit": 2})
    assert mssa_claims._near_chance(learned, spec) is None and mssa_claims._not_fewer_parameters(learned, spec) is None
    guessing = vision_frame({"mhsa": [0.11, 0.09], "vit": [0.95, 0.96]}, {"mhsa": 2, "vit": 2})
    assert "mhsa" in mssa_claims._near_chance(guessing, spec) and "vit" not in mssa_claims._near_chance(guessing, spec)
    assert "not fewer" in mssa_claims._not_fewer_parameters(guessing, spec)


def test_head_difference_is_zero_for_equal_heads_and_one_for_disjoint_heads():
    def frame(maps):
        return {"vision_attention": pd.DataFrame([{"model": "mssa", "seed": 0, "image": 5, "head": head, "patch": patch, "weight": weight}
                                                  for head, weights in enumerate(maps) for patch, weight in enumerate(weights)])}

    spec = {"model": "mssa"}
    assert mssa_claims._head_difference(frame([[0.2, 0.3], [0.2, 0.3]]), spec) == pytest.approx([0.0])
    assert mssa_claims._head_difference(frame([[0.5, 0.0], [0.0, 0.4]]), spec) == pytest.approx([1.0])
