"""SNR per layer of unrolled MSSA with known bases (Wang et al. 2025, Fig. 4, eq. 6, Theorem 3.1), and
what makes a layer miss the theorem's rate.

One draw: N tokens of Definition 2.1 (the `low_rank_mixture` task and its `off_subspace` corruption),
the operator of eqs. 3-4 with the draw's own bases in every layer, and per layer:
- ``snr``: eq. 6, ‖U_k U_kᵀ Z_k‖_F / ‖(I − U_k U_kᵀ) Z_k‖_F, averaged over the K subspaces
  (``snr_min``, ``snr_max``: the extremes over k);
- three attention diagnostics of the layer that produced it (its input Z⁽ℓ⁻¹⁾), each the quantity that
  the proof of Theorem 3.1 (Lemma B.3, eq. 30: φ(M_k) = τ I on block k and 0 elsewhere) fixes:
  ``own_self``: the mean weight φ(M_k)_ii a token of subspace k gives itself in its own head, over τ
  (theorem: 1; the signal gains ητ);
  ``noise_self``: the mean weight φ(M_l)_ii it gives itself in the K−1 other heads, over τ (theorem: 0;
  when positive the noise is amplified too);
  ``leakage``: the mean total weight Σ_{j∈C_l} φ(M_l)_ij it puts, in each other head l, on the tokens of
  subspace l, over τ (theorem: 0; when positive the signal of subspace l, grown by the previous
  layers, is copied into the token's noise).
Layer 0 has no attention; its diagnostics are NaN.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from icdenoise.maths.corruptions import OffSubspaceNoise
from icdenoise.maths.models import SubspaceSelfAttention
from icdenoise.maths.tasks import LowRankMixture

DIAGNOSTICS = ("own_self", "noise_self", "leakage")


def draw_tokens(n: int, K: int, p: int, tokens: int, delta: float, seed: int, draw: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(Z⁽⁰⁾ (tokens, n), bases (K, n, p), labels (tokens,)) of Definition 2.1, from default_rng([seed, draw])."""
    task = LowRankMixture(n=n, K=K, p=p)
    rng = np.random.default_rng([seed, draw])
    clean, parameters = task.sample_tokens(rng, tokens)
    noisy, _, _ = OffSubspaceNoise(sigma_z_sq=delta**2).corrupt(rng, clean, parameters)
    return noisy, parameters["bases"], task.labels(tokens)


def signal_to_noise(tokens: torch.Tensor, bases: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Eq. 6 per subspace: tokens (layers, T, n), bases (K, n, p), labels (T,) → (layers, K)."""
    coordinates = torch.einsum("ltn,knp->ltkp", tokens, bases)
    own = coordinates[:, torch.arange(len(labels)), labels]  # U_kᵀ z_i for i in C_k: (layers, T, p)
    signal_sq = own.square().sum(-1)
    noise_sq = tokens.square().sum(-1) - signal_sq  # ‖(I − P_k) z‖² = ‖z‖² − ‖U_kᵀ z‖²
    per_subspace = [(signal_sq[:, labels == k].sum(-1) / noise_sq[:, labels == k].sum(-1)).sqrt() for k in range(bases.shape[0])]
    return torch.stack(per_subspace, dim=-1)


def attention_diagnostics(model: SubspaceSelfAttention, layers: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """(depth, 3): own_self, noise_self and leakage (see the module) of each layer's attention, over τ
    (τ = 1 for the softmax)."""
    scale = model.tau if model.phi == "thresholded" else 1.0
    heads = model.heads
    member = torch.nn.functional.one_hot(labels, heads).to(layers.dtype)  # (T, K)
    other = 1.0 - member
    rows = []
    for layer in range(1, layers.shape[0]):
        weights = model.attention(model.head_coordinates(layers[layer - 1][None, None], layer))[0, 0] / scale  # (K, T, T)
        self_weight = torch.diagonal(weights, dim1=-2, dim2=-1).T  # (T, K)
        to_members = torch.einsum("kij,jk->ik", weights, member)  # Σ_{j∈C_k} φ(M_k)_ij: (T, K)
        rows.append(torch.stack([
            (self_weight * member).sum() / member.sum(),
            (self_weight * other).sum() / other.sum(),
            (to_members * other).sum() / other.sum(),
        ]))
    return torch.stack(rows)


def trajectory(n: int, K: int, p: int, tokens: int, delta: float, eta: float, tau: float, phi: str, depth: int,
               seed: int, draw: int) -> pd.DataFrame:
    """One draw through `depth` MSSA layers: columns layer, snr, snr_min, snr_max, own_self, noise_self, leakage."""
    noisy, bases, labels = draw_tokens(n, K, p, tokens, delta, seed, draw)
    bases_tensor, labels_tensor = torch.as_tensor(bases), torch.as_tensor(labels)
    model = SubspaceSelfAttention.from_bases(bases_tensor[None], depth, eta, tau, phi)
    with torch.no_grad():
        layers = model.layer_outputs(torch.as_tensor(noisy)[None, None])[:, 0, 0]  # (depth + 1, T, n)
        per_subspace = signal_to_noise(layers, bases_tensor, labels_tensor)
        diagnostics = attention_diagnostics(model, layers, labels_tensor).numpy()
    table = pd.DataFrame({"layer": np.arange(depth + 1), "snr": per_subspace.mean(-1).numpy(),
                          "snr_min": per_subspace.min(-1).values.numpy(), "snr_max": per_subspace.max(-1).values.numpy()})
    for index, name in enumerate(DIAGNOSTICS):
        table[name] = np.concatenate([[np.nan], diagnostics[:, index]])
    return table


def with_theory(table: pd.DataFrame, group: list[str]) -> pd.DataFrame:
    """Adds theory_gain 1 + ητ (τ = 1 for the softmax), the measured per-layer ratio SNR_ℓ/SNR_{ℓ−1}
    and the theory line SNR₀ (1 + ητ)^ℓ from each draw's own SNR₀."""
    table = table.sort_values([*group, "layer"]).reset_index(drop=True)
    tau = np.where(table["phi"] == "thresholded", table["tau"], 1.0)
    table["theory_gain"] = 1.0 + table["eta"] * tau
    first = table.groupby(group)["snr"].transform("first")
    table["theory"] = first * table["theory_gain"] ** table["layer"]
    table["ratio"] = table["snr"] / table.groupby(group)["snr"].shift(1)
    return table


def snr_table(block: dict) -> pd.DataFrame:
    """Fig. 4: every δ and φ of the block, one draw per seed, SNR per layer with the theory line.
    Columns delta, phi, eta, tau, seed, layer, snr, … (see `trajectory`, `with_theory`)."""
    frames = []
    for delta in block["deltas"]:
        for phi in block["phis"]:
            for draw in block["seeds"]:
                rows = trajectory(block["n"], block["K"], block["p"], block["tokens"], delta, block["eta"], block["tau"], phi,
                                  block["depth"], block["seed"], draw)
                frames.append(rows.assign(delta=delta, phi=phi, eta=block["eta"], tau=block["tau"], seed=draw, p=block["p"],
                                          n=block["n"], K=block["K"], tokens=block["tokens"]))
    return with_theory(pd.concat(frames, ignore_index=True), ["delta", "phi", "seed"])


def one_at_a_time(base: dict, sweep: dict, factors: tuple[tuple[str, str], ...], phi: str) -> pd.DataFrame:
    """From the Fig. 4 setting `base` at δ = sweep.delta, each (factor, list key of `sweep`) varied alone, `sweep.depth`
    layers of φ = `phi`, one draw per seed. p changes the ambient dimension to n = K p (orthogonal subspaces filling
    R^n, as in the base setting). Columns factor, value, then as `snr_table`."""
    setting = {"n": base["n"], "K": base["K"], "p": base["p"], "tokens": base["tokens"], "delta": sweep["delta"], "eta": base["eta"]}
    frames = []
    for factor, key in factors:
        for value in sweep[key]:
            point = {**setting, factor: value}
            if factor == "p":
                point["n"] = base["K"] * value
            for draw in sweep["seeds"]:
                rows = trajectory(point["n"], point["K"], point["p"], int(point["tokens"]), point["delta"], point["eta"], base["tau"],
                                  phi, sweep["depth"], base["seed"], draw)
                frames.append(rows.assign(factor=factor, value=float(value), delta=point["delta"], phi=phi, eta=point["eta"],
                                          tau=base["tau"], seed=draw, p=point["p"], n=point["n"], K=point["K"], tokens=point["tokens"]))
    return with_theory(pd.concat(frames, ignore_index=True), ["factor", "value", "seed"])


def sweep_table(base: dict, sweep: dict) -> pd.DataFrame:
    """The regime sweep of Theorem 3.1: η, p and δ one at a time with φ = sweep.phi (`one_at_a_time`)."""
    return one_at_a_time(base, sweep, (("eta", "etas"), ("p", "ps"), ("delta", "deltas")), sweep["phi"])


def departures(sweep: pd.DataFrame, tolerance: float) -> pd.DataFrame:
    """Per sweep point and seed: the first layer ℓ whose ratio SNR_ℓ/SNR_{ℓ−1} is off 1 + ητ by more than
    `tolerance` (relative), the diagnostics of that layer, and the largest θ = (1 + ητ)^{ℓ−1} reached
    before it. Columns factor, value, seed, departure_layer (NaN: none within the depth), theta_before,
    own_self, noise_self, leakage (at the departure layer), max_leakage_before and tolerance."""
    rows = []
    for (factor, value, seed), mine in sweep.groupby(["factor", "value", "seed"]):
        mine = mine.sort_values("layer")
        steps = mine[mine["layer"] >= 1]
        off = steps[(steps["ratio"] / steps["theory_gain"] - 1).abs() > tolerance]
        row = {"factor": factor, "value": value, "seed": seed, "delta": steps["delta"].iloc[0], "eta": steps["eta"].iloc[0],
               "p": steps["p"].iloc[0], "theory_gain": steps["theory_gain"].iloc[0], "depth": int(steps["layer"].max()), "tolerance": tolerance}
        if off.empty:
            row.update(departure_layer=np.nan, theta_before=float(steps["theory_gain"].iloc[0] ** row["depth"]),
                       own_self=np.nan, noise_self=np.nan, leakage=np.nan, max_leakage_before=float(steps["leakage"].max()))
        else:
            first = off.iloc[0]
            before = steps[steps["layer"] < first["layer"]]
            row.update(departure_layer=int(first["layer"]), theta_before=float(first["theory_gain"] ** (first["layer"] - 1)),
                       own_self=first["own_self"], noise_self=first["noise_self"], leakage=first["leakage"],
                       max_leakage_before=float(before["leakage"].max()) if len(before) else np.nan)
        rows.append(row)
    return pd.DataFrame(rows)


def softmax_sweep_table(base: dict, sweep: dict) -> pd.DataFrame:
    """Plain softmax φ (eq. 4 without the threshold): η, p and the number of tokens N one at a time (`one_at_a_time`)."""
    return one_at_a_time(base, sweep, (("eta", "etas"), ("p", "ps"), ("tokens", "token_counts")), "softmax")


def softmax_gains(table: pd.DataFrame) -> pd.DataFrame:
    """Per sweep point and seed of `softmax_sweep_table`: layers_above (the leading layers ℓ ≥ 1 whose SNR stays
    above SNR₀; the depth when all do), the largest gain SNR_ℓ/SNR₀, the layer it is reached at, and the gain at
    the last layer."""
    rows = []
    for (factor, value, seed), mine in table.groupby(["factor", "value", "seed"]):
        gain = (mine.sort_values("layer")["snr"] / mine.sort_values("layer")["snr"].iloc[0]).to_numpy()
        below = np.flatnonzero(gain[1:] <= 1.0)
        rows.append({"factor": factor, "value": value, "seed": seed, "depth": gain.size - 1,
                     "layers_above": int(below[0]) if below.size else gain.size - 1, "largest_gain": float(gain.max()),
                     "best_layer": int(gain.argmax()), "last_gain": float(gain[-1])})
    return pd.DataFrame(rows)
