"""One scoring function for every denoiser; closed forms under both corruptions; the leaderboard table."""

import numpy as np
import pandas as pd
import pytest
import torch

from icdenoise.maths import bayes
from icdenoise.maths.cases import make_case
from icdenoise.maths.denoisers import TrainedEnsemble
from icdenoise.maths.estimators import closed_form_denoisers
from icdenoise.maths.models import SoftmaxAttention
from icdenoise.maths.scoring import score, score_on_fresh_prompts, squared_error_per_prompt, squared_error_per_seed
from icdenoise.records.leaderboard import leaderboard_table, markdown

GMM = {"task": "gmm", "n": 3, "K": 2, "radius": 1.0, "sigma0_sq": 0.05}


def test_squared_errors_agree_between_numpy_and_torch_and_with_a_direct_sum():
    rng = np.random.default_rng(0)
    prediction, target = rng.standard_normal((2, 5, 4, 3)), rng.standard_normal((5, 4, 3))
    per_prompt = squared_error_per_prompt(prediction, target)
    direct = np.array([[np.sum((prediction[s, b] - target[b]) ** 2) / 12 for b in range(5)] for s in range(2)])
    np.testing.assert_allclose(per_prompt, direct, rtol=1e-12)
    np.testing.assert_allclose(squared_error_per_prompt(torch.tensor(prediction), torch.tensor(target)).numpy(), direct, rtol=1e-12)
    np.testing.assert_allclose(squared_error_per_seed(prediction, target), direct.mean(axis=1), rtol=1e-12)


def test_score_gives_mean_and_standard_error_per_denoiser_and_seed():
    case = make_case({**GMM, "corruption": {"kind": "query", "sigma_z_sq": 0.1}})
    prompts = case.sample(40, 10, seed=0)
    model = SoftmaxAttention.initialise([3, 4], 3, dtype=torch.float64)
    denoisers = {**closed_form_denoisers(case), "trained": TrainedEnsemble(model, (3, 4))}
    table = score(denoisers, prompts).set_index(["estimator", "seed"], drop=False)
    oracle = np.mean((closed_form_denoisers(case)["oracle"].predict(prompts)[0] - prompts.target) ** 2, axis=1)
    row = table[table["estimator"] == "oracle"].iloc[0]
    assert row["mse"] == pytest.approx(oracle.mean()) and row["sem"] == pytest.approx(oracle.std(ddof=1) / np.sqrt(40))
    assert np.isnan(row["seed"]) and list(table.loc[table["estimator"] == "trained", "seed"]) == [3, 4]
    seed_four = np.mean((model.predict(prompts)[1] - prompts.target) ** 2, axis=1).mean()
    assert table[(table["estimator"] == "trained") & (table["seed"] == 4)]["mse"].iloc[0] == pytest.approx(seed_four)


def test_fresh_prompt_scores_do_not_depend_on_the_chunk_size():
    case = make_case({**GMM, "corruption": {"kind": "query", "sigma_z_sq": 0.1}})
    denoisers = closed_form_denoisers(case)
    whole = score_on_fresh_prompts(denoisers, case, 10, 30, seed=5, chunk_size=30)
    chunked = score_on_fresh_prompts(denoisers, case, 10, 30, seed=5, chunk_size=7)
    pd.testing.assert_frame_equal(whole, chunked)


def test_under_all_token_corruption_the_oracle_denoises_every_token_with_the_posterior_mean():
    case = make_case({**GMM, "corruption": {"kind": "all_tokens", "sigma_z_sq": 0.2}})
    prompts = case.sample(5, 6, seed=1)
    denoisers = closed_form_denoisers(case)
    assert set(denoisers) == {"oracle", "oracle_point_masses", "zero"}  # plug-ins and attention forms need clean context
    estimate = denoisers["oracle"].predict(prompts)
    assert estimate.shape == (1, 5, 6, 3)
    for prompt in range(5):
        expected = bayes.gmm_posterior_mean(prompts.query[prompt], np.repeat(prompts.task["centres"][prompt][None], 6, axis=0),
                                            np.repeat(prompts.task["weights"][prompt][None], 6, axis=0), 0.05, 0.2)
        np.testing.assert_allclose(estimate[0, prompt], expected, rtol=1e-12)


def test_the_all_token_oracle_matches_monte_carlo_and_beats_the_noisy_tokens():
    """The tokenwise posterior mean is Bayes-optimal: its MSE is below the noise variance and matches
    importance sampling from the prior."""
    case = make_case({**GMM, "corruption": {"kind": "all_tokens", "sigma_z_sq": 0.3}})
    prompts = case.sample(1, 4, seed=2)
    rng = np.random.default_rng(3)
    centres = prompts.task["centres"][0]
    prior = centres[rng.integers(2, size=200000)] + np.sqrt(0.05) * rng.standard_normal((200000, 3))
    estimate = closed_form_denoisers(case)["oracle"].predict(prompts)[0, 0]
    for token, noisy in enumerate(prompts.query[0]):
        log_weights = -np.sum((prior - noisy) ** 2, axis=1) / (2 * 0.3)
        weights = np.exp(log_weights - log_weights.max())
        np.testing.assert_allclose(estimate[token], weights @ prior / weights.sum(), atol=0.01)
    table = score(closed_form_denoisers(case), case.sample(300, 8, seed=4)).set_index("estimator")
    assert table.loc["oracle", "mse"] < 0.3 < table.loc["zero", "mse"] + 0.3


def test_leaderboard_ranks_each_case_and_divides_by_its_oracle():
    closed = pd.DataFrame({"case": ["a", "a", "b", "b"], "estimator": ["oracle", "zero", "oracle", "zero"],
                           "mse": [0.1, 1.0, 0.2, 0.5], "sem": [0.01] * 4, "expected": [np.nan] * 4, "n_prompts": 100, "L": [5, 5, 7, 7]})
    trained = pd.DataFrame({"case": "a", "estimator": "softmax", "seed": [0, 1], "mse": [0.2, 0.4], "sem": [0.02, 0.04],
                            "n_prompts": 100, "L": 5})
    cases = {"b": {"task": "gmm", "corruption": {"kind": "all_tokens"}}, "a": {"task": "linear", "corruption": {"kind": "query"}}}
    table = leaderboard_table(closed, trained, cases)
    assert list(table["case"]) == ["b", "b", "a", "a", "a"]  # config order, then by MSE
    softmax = table[table["estimator"] == "softmax"].iloc[0]
    assert (softmax["mse"], softmax["mse_min"], softmax["mse_max"], softmax["n_seeds"]) == pytest.approx((0.3, 0.2, 0.4, 2))
    assert softmax["ratio_to_bayes"] == pytest.approx(3.0) and softmax["kind"] == "trained"
    assert table[table["case"] == "b"]["ratio_to_bayes"].tolist() == pytest.approx([1.0, 2.5])
    text = markdown(table, {"run": "paper", "files": [{"file": "c.yaml", "sha256": "0" * 64}], "merged_sha256": "1" * 64})
    assert "## b (gmm task, all_tokens corruption, L = 7)" in text and "0.3 [0.2, 0.4]" in text
    assert softmax["gap_to_zero"] == pytest.approx((0.3 - 0.1) / (1.0 - 0.1))
    exact = leaderboard_table(closed.assign(mse=[1e-13, 1.0, 0.2, 0.5]), trained, cases)  # a's Bayes exact to rounding
    softmax = exact[exact["estimator"] == "softmax"].iloc[0]
    assert np.isnan(softmax["ratio_to_bayes"]) and softmax["gap_to_zero"] == pytest.approx(0.3, rel=1e-9)
    assert exact[exact["case"] == "b"]["ratio_to_bayes"].tolist() == pytest.approx([1.0, 2.5])


def test_a_case_without_a_bayes_baseline_is_marked_missing_never_exact():
    """A task of one's own without `bayes` has no oracle row: its ratios and gaps are NaN in the table and read
    NO_BAYES in the Markdown, whose legend explains it; the "–" of an exact Bayes stays for that alone."""
    from icdenoise.records.leaderboard import NO_BAYES

    sources = {"run": "r", "files": [], "merged_sha256": "1" * 64}
    closed = pd.DataFrame({"case": ["a", "a", "own", "own"], "estimator": ["oracle", "zero", "zero", "zero_again"],
                           "mse": [1e-13, 1.0, 0.5, 0.6], "sem": [0.01] * 4, "expected": [np.nan] * 4, "n_prompts": 100, "L": 5})
    trained = pd.DataFrame({"case": "own", "estimator": "softmax", "seed": [0, 1], "mse": [0.2, 0.4], "sem": [0.02, 0.04],
                            "n_prompts": 100, "L": 5})
    cases = {"a": {"task": "linear", "corruption": {"kind": "query"}}, "own": {"task": "mine:Ring", "corruption": {"kind": "query"}}}
    table = leaderboard_table(closed, trained, cases)
    own = table[table["case"] == "own"]
    assert own[["bayes_mse", "ratio_to_bayes", "gap_to_zero"]].isna().all().all() and list(own["estimator"])[0] == "softmax"
    text = markdown(table, sources)
    sections = text.split("## ")
    exact, missing = sections[1], sections[2]
    assert "–" in exact and NO_BAYES not in exact  # a's Bayes is exact up to rounding: its ratios read "–"
    assert "No Bayes baseline" in missing and "–" not in missing
    assert all(line.endswith(f"| {NO_BAYES} | {NO_BAYES} |") for line in missing.splitlines() if line.startswith("| `"))
    assert f'"{NO_BAYES}" marks a case whose task' in sections[0]
    assert NO_BAYES not in markdown(table[table["case"] == "a"], sources)  # the legend names it only where a case lacks one
