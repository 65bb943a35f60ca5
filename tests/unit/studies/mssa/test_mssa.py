"""The mssa study's core pieces against independent computations: Definition 2.1's sampling (moments
by Monte-Carlo), the posterior mean with known bases (scipy's Gaussian densities and the Gaussian
conditional mean), the MSSA layer (a loop over heads and tokens in the paper's column orientation),
eq. 6 (explicit projectors), and Theorem 3.1's exact rate in the event its proof constructs."""

import numpy as np
import pytest
import torch
from scipy.stats import multivariate_normal

from icdenoise.maths import bayes
from icdenoise.maths.cases import make_case
from icdenoise.maths.corruptions import OffSubspaceNoise
from icdenoise.maths.estimators import closed_form_denoisers
from icdenoise.maths.models import SubspaceSelfAttention
from icdenoise.maths.scoring import score
from icdenoise.maths.tasks import LowRankMixture
from icdenoise.studies.mssa.known_bases import KnownBasesMSSA
from icdenoise.studies.mssa.snr import draw_tokens, signal_to_noise, trajectory

CASE = {"task": "low_rank_mixture", "n": 12, "K": 3, "p": 4, "corruption": {"kind": "off_subspace", "sigma_z_sq": 0.09}, "L": 30}


def test_definition_2_1_tokens_and_noise_have_the_stated_moments():
    """Clean tokens of block k lie in span U_k with identity covariance there; the noise has variance δ²
    on each other subspace and none on the token's own."""
    task, delta_sq = LowRankMixture(n=12, K=3, p=4), 0.09
    rng = np.random.default_rng(0)
    clean, parameters = task.sample_tokens(rng, 30000)
    noisy, query, target = OffSubspaceNoise(delta_sq).corrupt(rng, clean, parameters)
    bases, labels = parameters["bases"], task.labels(30000)
    side_by_side = bases.transpose(1, 0, 2).reshape(12, 12)  # [U_1 U_2 U_3]
    np.testing.assert_allclose(side_by_side.T @ side_by_side, np.eye(12), atol=1e-12)
    assert query is noisy and target is clean
    assert np.bincount(labels).tolist() == [10000] * 3
    noise = noisy - clean
    for k in range(3):
        mine = labels == k
        coordinates = clean[mine] @ bases[k]
        np.testing.assert_allclose(coordinates @ bases[k].T, clean[mine], atol=1e-12)  # in span U_k
        np.testing.assert_allclose(np.cov(coordinates.T), np.eye(4), atol=0.05)
        np.testing.assert_allclose(noise[mine] @ bases[k], 0.0, atol=1e-12)  # no noise on its own subspace
        for j in set(range(3)) - {k}:
            np.testing.assert_allclose(np.cov((noise[mine] @ bases[j]).T), delta_sq * np.eye(4), atol=0.01)


def test_posterior_mean_with_known_bases_equals_gaussian_conditioning():
    """Independently: π_k from scipy's density of z under N(0, Σ_k), Σ_k = U_kU_kᵀ + δ² Σ_{j≠k} U_jU_jᵀ,
    and E[x | z, k] = U_kU_kᵀ Σ_k⁻¹ z."""
    task, delta_sq = LowRankMixture(n=6, K=3, p=2), 0.3
    rng = np.random.default_rng(1)
    clean, parameters = task.sample_tokens(rng, 9)
    noisy, _, _ = OffSubspaceNoise(delta_sq).corrupt(rng, clean, parameters)
    bases = parameters["bases"]
    projectors = [basis @ basis.T for basis in bases]
    covariances = [projectors[k] + delta_sq * sum(projectors[j] for j in range(3) if j != k) for k in range(3)]
    expected = []
    for z in noisy:
        densities = np.array([multivariate_normal(np.zeros(6), covariance).pdf(z) for covariance in covariances])
        weights = densities / densities.sum()
        expected.append(sum(w * projectors[k] @ np.linalg.solve(covariances[k], z) for k, w in enumerate(weights)))
    ours = bayes.low_rank_mixture_posterior_mean(noisy, np.broadcast_to(bases, (9, *bases.shape)), delta_sq)
    np.testing.assert_allclose(ours, np.array(expected), rtol=1e-9, atol=1e-12)


def test_oracle_beats_every_other_denoiser_on_fresh_prompts():
    """The posterior mean has the lowest MSE, below the identity read-out's (K−1)pδ²/n and MSSA's."""
    case = make_case(CASE)
    prompts = case.sample(200, CASE["L"], seed=3)
    denoisers = {**closed_form_denoisers(case), "mssa": KnownBasesMSSA(layers=2, eta=1.0, tau=0.6, phi="thresholded")}
    table = score(denoisers, prompts).set_index("estimator")["mse"]
    identity = np.mean((prompts.context - prompts.target) ** 2)
    np.testing.assert_allclose(identity, 2 * 4 * 0.09 / 12, rtol=0.05)
    assert table["oracle"] < table["mssa"] and table["oracle"] < identity < table["zero"]


def paper_orientation_mssa(Z, bases, eta, tau, phi):
    """Eq. 4 as written: Z (n, N) columns are tokens; φ acts on each column of M_k = Zᵀ U_k U_kᵀ Z."""
    update = np.zeros_like(Z)
    for basis in bases:
        projected = basis @ basis.T @ Z
        scores = Z.T @ basis @ basis.T @ Z
        weights = np.exp(scores - scores.max(axis=0, keepdims=True))
        weights /= weights.sum(axis=0, keepdims=True)  # softmax of each column
        if phi == "thresholded":
            weights = tau * (weights > tau)
        update += projected @ weights
    return Z + eta * update


@pytest.mark.parametrize("phi", ["softmax", "thresholded"])
def test_mssa_layers_equal_eq_4_in_the_papers_orientation(phi):
    noisy, bases, _ = draw_tokens(n=8, K=2, p=3, tokens=10, delta=0.4, seed=5, draw=0)
    model = SubspaceSelfAttention.from_bases(torch.as_tensor(bases)[None], layers=3, eta=0.7, tau=0.55, phi=phi)
    with torch.no_grad():
        ours = model.layer_outputs(torch.as_tensor(noisy)[None, None])[:, 0, 0].numpy()
    Z = noisy.T
    for layer in range(1, 4):
        Z = paper_orientation_mssa(Z, bases, 0.7, 0.55, phi)
        np.testing.assert_allclose(ours[layer], Z.T, rtol=1e-10, atol=1e-12)


def test_signal_to_noise_equals_eq_6_with_explicit_projectors():
    noisy, bases, labels = draw_tokens(n=8, K=2, p=3, tokens=10, delta=0.4, seed=6, draw=1)
    ours = signal_to_noise(torch.as_tensor(noisy)[None], torch.as_tensor(bases), torch.as_tensor(labels))[0].numpy()
    for k in range(2):
        Z = noisy[labels == k].T
        projector = bases[k] @ bases[k].T
        expected = np.linalg.norm(projector @ Z) / np.linalg.norm((np.eye(8) - projector) @ Z)
        np.testing.assert_allclose(ours[k], expected, rtol=1e-12)


def test_theorem_3_1_rate_is_exact_while_the_proofs_event_holds_and_leakage_ends_it():
    """Inside the conditions (δ small, p large against log N) φ(M_k) is τI on block k and zero
    elsewhere: the ratio is 1 + ητ to rounding and no weight leaks. Deep enough, θ = (1 + ητ)^ℓ makes
    the softmax over other subspaces' signal tokens exceed τ: leakage appears and the rate is lost."""
    table = trajectory(n=64, K=2, p=32, tokens=40, delta=0.1, eta=1.0, tau=0.6, phi="thresholded", depth=8, seed=7, draw=0)
    ratios = (table["snr"] / table["snr"].shift(1)).to_numpy()[1:]
    exact = table["leakage"].to_numpy()[1:] == 0
    assert exact[0] and table["own_self"].iloc[1] == 1.0 and table["noise_self"].iloc[1] == 0.0
    np.testing.assert_allclose(ratios[exact], 1.6, rtol=1e-12)
    assert not exact.all(), "the depth is chosen so that leakage sets in"
    assert ratios[~exact][0] < 1.6 * 0.99
