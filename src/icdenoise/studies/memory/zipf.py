"""Zipf scaling laws of a finite associative memory (Bietti 2025 slides: "Setting", "Hutter (2021): with
infinite memory", "Theorem (Cabannes, Dohmatob, and B., 2024a, informal)").

Setting of the slides: tokens z ∈ [N] with p(z) ∝ z^{−α}; a fixed random map f*: [N] → [M]; n samples
give counts n_z; random embeddings e_z, u_y ∈ R^d with N(0, 1/d) entries; the memory and its read-out

    W = Σ_z q(z) u_{f*(z)} e_zᵀ,        f̂(z) = argmax_y u_yᵀ W e_z,

with the slides' three estimators q:
- ``counts``: q(z) = n_z (Theorem ①: L ≲ n^{−(α−1)/α} + d^{−(α−1)/(2α)});
- ``seen``: q(z) = 1{n_z ≥ 1} (Theorem ②, for d ≫ N: L ≲ n^{−(α−1)/α} + d^{−k});
- ``threshold``: q(z) = 1{n_z ≥ s} (Theorem ③: L ≲ n^{−(α−1)/α} + d^{−α+1}). s is the smallest threshold
  that stores at most k*(d) tokens (`capacity_threshold`);
and the slides' "can store at most d memories (approximation error: d^{−α+1})", measured by ``top_k``:
q(z) = 1{z ≤ k}, the k most frequent tokens. k runs over a grid proportional to d, and k*(d) is the k of
least error for this draw's embeddings.

The test error L = P(y ≠ f̂(z)) = Σ_z p(z) 1{f̂(z) ≠ f*(z)} is exact over the whole vocabulary given q and
the embeddings (`recall_errors`). The multinomial counts are the only sampling. A token with q(z) = 0 is
still read out; its argmax is a guess that is right about once in M.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from icdenoise.studies.memory.config import zipf_problems
from icdenoise.studies.memory.embeddings import gaussian_embeddings, generator
from icdenoise.maths.fits import loglog_slope_where_defined

ESTIMATORS = ("counts", "seen", "threshold")
INPUTS, OUTPUTS, TARGETS, SAMPLES = 1, 2, 3, 4  # purpose codes in the generator keys
SCORE_FLOATS_PER_CHUNK = 2**23  # a chunk of memories is scored with at most this many float32 scores


def zipf_probabilities(vocabulary: int, alpha: float) -> np.ndarray:
    """p(z) ∝ z^{−α} on z = 1..N (slides, "Setting"), float64, in rank order."""
    weights = np.arange(1, vocabulary + 1, dtype=np.float64) ** -float(alpha)
    return weights / weights.sum()


def expected_unseen_mass(probabilities: np.ndarray, n: int) -> float:
    """E[Σ_z p(z) 1{z not among n samples}] = Σ_z p(z)(1 − p(z))^n: the error of an infinite memory that
    recalls every seen token and errs on every unseen one (Hutter 2021: ≍ n^{−(α−1)/α} for Zipf)."""
    return float(np.sum(probabilities * np.exp(n * np.log1p(-probabilities))))


def expected_seen_tokens(probabilities: np.ndarray, n: int) -> float:
    """E[number of distinct tokens among n samples] = Σ_z 1 − (1 − p(z))^n."""
    return float(np.sum(-np.expm1(n * np.log1p(-probabilities))))


def infinite_memory_error(probabilities: np.ndarray, n: int, outputs: int) -> float:
    """(1 − 1/M) Σ_z p(z)(1 − p(z))^n: the expected error of a memory with no interference. It recalls every
    seen token, and on an unseen token its read-out is a guess that is right once in M."""
    return (1.0 - 1.0 / outputs) * expected_unseen_mass(probabilities, n)


def sample_sizes(block: dict) -> list[int]:
    """The n grid: round(2^{j / n_per_octave}) from 1 to n_max, without repeats."""
    octaves = int(np.floor(np.log2(block["n_max"]) * block["n_per_octave"] + 1e-9))
    return sorted({int(round(2 ** (j / block["n_per_octave"]))) for j in range(octaves + 1)})


def top_k_grid(d: int, vocabulary: int, block: dict) -> np.ndarray:
    """The numbers k of most frequent tokens tried at dimension d: round(d · 2^{j / top_k_per_octave}) for
    k/d in [top_k_over_d], clipped to [1, N], without repeats."""
    low, high = (np.log2(bound) for bound in block["top_k_over_d"])
    steps = np.arange(np.ceil(low * block["top_k_per_octave"] - 1e-9), np.floor(high * block["top_k_per_octave"] + 1e-9) + 1)
    return np.unique(np.clip(np.round(d * 2.0 ** (steps / block["top_k_per_octave"])).astype(np.int64), 1, vocabulary))


def nested_counts(probabilities: np.ndarray, sizes: list[int], rng: np.random.Generator) -> np.ndarray:
    """Counts n_z after each of the increasing sample sizes of one stream of i.i.d. draws from p:
    (len(sizes), N) int64, row j = row j−1 + Multinomial(sizes[j] − sizes[j−1], p)."""
    if any(later <= earlier for earlier, later in zip(sizes, sizes[1:])) or sizes[0] < 1:
        raise ValueError(f"sample sizes must be positive and increasing, got {sizes}")
    increments = [rng.multinomial(size - previous, probabilities) for previous, size in zip([0, *sizes], sizes)]
    return np.cumsum(np.stack(increments), axis=0)


def estimator_weights(counts: np.ndarray, estimator: str, threshold: int | None = None) -> np.ndarray:
    """q(z) of Theorem ①-③ from the counts n_z: counts (scaled by their largest value, which leaves
    argmax_y unchanged), 1{n_z ≥ 1} or 1{n_z ≥ s}; float64."""
    counts = np.asarray(counts)
    if estimator == "counts":
        return counts / max(int(counts.max()), 1)
    if estimator == "seen":
        return (counts >= 1).astype(np.float64)
    if estimator == "threshold":
        if threshold is None or threshold < 1:
            raise ValueError(f"the threshold estimator needs s ≥ 1, got {threshold}")
        return (counts >= threshold).astype(np.float64)
    raise ValueError(f"unknown estimator {estimator!r}; allowed: {', '.join(ESTIMATORS)}")


def capacity_threshold(counts: np.ndarray, capacity: int) -> int:
    """The rule for s: the smallest s ≥ 1 with #{z: n_z ≥ s} ≤ capacity. With the counts sorted down,
    c_(1) ≥ c_(2) ≥ …, that is 1 if at most `capacity` tokens were seen, else c_(capacity+1) + 1."""
    if capacity < 0:
        raise ValueError(f"capacity must be ≥ 0, got {capacity}")
    descending = np.sort(np.asarray(counts))[::-1]
    if capacity >= descending.size or descending[capacity] == 0:
        return 1
    return int(descending[capacity]) + 1


@dataclass(frozen=True)
class RandomMemory:
    """One draw of the slides' embeddings at the largest dimension: inputs e_z (N, d_max), outputs u_y
    (M, d_max), each N(0, 1/d_max), and the targets f*(z) (N,), uniform on [M]."""

    inputs: torch.Tensor
    outputs: torch.Tensor
    targets: torch.Tensor

    @classmethod
    def draw(cls, seed: int, draw: int, vocabulary: int, outputs: int, d_max: int) -> "RandomMemory":
        targets = torch.randint(outputs, (vocabulary,), generator=generator(seed, draw, TARGETS), dtype=torch.int64)
        return cls(gaussian_embeddings(generator(seed, draw, INPUTS), vocabulary, d_max),
                   gaussian_embeddings(generator(seed, draw, OUTPUTS), outputs, d_max), targets)

    def at(self, d: int, vocabulary: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(inputs (vocabulary, d), outputs (M, d), targets (vocabulary,)) of the first `vocabulary` tokens
        at dimension d: the first d coordinates, rescaled to N(0, 1/d) entries. The memories of one draw
        at different d (and vocabularies) share their embeddings' leading coordinates."""
        d_max = self.inputs.shape[1]
        if not 1 <= d <= d_max or not 1 <= vocabulary <= self.inputs.shape[0]:
            raise ValueError(f"d = {d}, N = {vocabulary} outside the drawn {d_max} dimensions and {self.inputs.shape[0]} tokens")
        if d == d_max:
            return self.inputs[:vocabulary], self.outputs, self.targets[:vocabulary]
        scale = float(np.sqrt(d_max / d))
        return self.inputs[:vocabulary, :d] * scale, self.outputs[:, :d] * scale, self.targets[:vocabulary]


def recall_errors(inputs: torch.Tensor, outputs: torch.Tensor, targets: torch.Tensor, probabilities: np.ndarray,
                  weights: np.ndarray) -> np.ndarray:
    """Exact test errors Σ_z p(z) 1{argmax_y u_yᵀ W_b e_z ≠ f*(z)} of B memories W_b = Σ_z q_b(z) u_{f*(z)} e_zᵀ
    that share their embeddings. inputs (N, d), outputs (M, d), targets (N,), weights (B, N) ≥ 0 → (B,) float64
    (`recall_error_parts`)."""
    return recall_error_parts(inputs, outputs, targets, probabilities, weights)[0]


def recall_error_parts(inputs: torch.Tensor, outputs: torch.Tensor, targets: torch.Tensor, probabilities: np.ndarray,
                       weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The exact test errors of `recall_errors` and their part on the stored tokens, Σ_{z: q_b(z) > 0} p(z)
    1{argmax_y u_yᵀ W_b e_z ≠ f*(z)}: the error the finite memory makes on what it holds (Theorem ②'s memory
    term, where q = 1{seen}); the rest is the tokens it never stored. Two (B,) float64 arrays.

    With V_b = Σ_z q_b(z) one_hot(f*(z)) e_zᵀ (M, d) and G = U Uᵀ (M, M), u_yᵀ W_b e_z = e_z · (G V_b)_y, so
    only stored tokens enter V_b and every token costs d·M per memory. Ties go to the first output."""
    count, outputs_count = weights.shape[0], outputs.shape[0]
    gram = outputs @ outputs.T
    mass = torch.as_tensor(probabilities, dtype=torch.float64)
    chunk = max(1, SCORE_FLOATS_PER_CHUNK // (inputs.shape[0] * outputs_count))
    errors, on_stored = [], []
    for start in range(0, count, chunk):
        batch = torch.as_tensor(weights[start:start + chunk], dtype=torch.float32)
        stored = batch.any(dim=0).nonzero().squeeze(1)
        one_hot = torch.nn.functional.one_hot(targets[stored], outputs_count).to(torch.float32)  # (S, M)
        mixing = (batch[:, stored, None] * one_hot[None]).transpose(1, 2)  # (b, M, S)
        per_output = (mixing.reshape(-1, stored.numel()) @ inputs[stored]).reshape(-1, outputs_count, inputs.shape[1])
        readout = (gram @ per_output).reshape(-1, inputs.shape[1])  # rows (G V_b)_y: (b·M, d)
        predicted = (inputs @ readout.T).reshape(inputs.shape[0], -1, outputs_count).argmax(dim=-1)  # (N, b)
        wrong = predicted != targets[:, None]  # (N, b)
        errors.append(mass @ wrong.to(torch.float64))
        on_stored.append(mass @ (wrong & (batch > 0).T).to(torch.float64))
    return torch.cat(errors).numpy(), torch.cat(on_stored).numpy()


def load_limit(d: int, outputs: int, margin: float) -> float:
    """The number k of unit memories below which interference is negligible. By the slides' variance formula,
    Var ≲ |{f*(z') = y}|/d + |{f*(z') ≠ y}|/d², the score margin between the right output and a wrong one
    has variance ≈ 2k(1/M + 1/d)/d. Keeping its standard deviation `margin` times below the signal 1 gives
    k ≤ d / (2 margin² (1/M + 1/d))."""
    return d / (2 * margin**2 * (1 / outputs + 1 / d))


def fit_range_n(probabilities: np.ndarray, estimator: str, block: dict) -> tuple[float, float]:
    """The n range where the d-term of Theorem ①-③ is negligible at d_for_n_sweep, from theory alone:
    - seen and threshold: the expected number of distinct tokens seen is at most `load_limit`;
    - counts: the head token's interference n·p(1)/√d on a count of 1 is `fit_margin` times below it,
      n ≤ √d / (margin p(1)).
    Both start at n_fit_min, where Hutter's asymptotic rate is taken to hold."""
    d, margin = block["d_for_n_sweep"], block["fit_margin"]
    if estimator == "counts":
        return float(block["n_fit_min"]), float(np.sqrt(d) / (margin * probabilities[0]))
    limit = load_limit(d, block["outputs"], margin)
    inside = [n for n in sample_sizes(block) if expected_seen_tokens(probabilities, n) <= limit]
    return float(block["n_fit_min"]), float(max(inside, default=0))


def check_block(block: dict) -> None:
    """Raises ValueError listing every inconsistent key of a `memory.zipf` block."""
    problems = zipf_problems(block)
    if problems:
        raise ValueError("memory.zipf: " + "; ".join(problems))


def _estimator_rows(inputs, outputs, targets, probabilities, counts_by_n: dict, capacity: int) -> list[dict]:
    """counts, seen and threshold rows at each n; a threshold memory with s = 1 is the seen memory and is
    not scored twice."""
    keys, positions, weights = [], [], []
    for n, counts in counts_by_n.items():
        threshold = capacity_threshold(counts, capacity)
        position = {}
        for estimator in ESTIMATORS:
            if estimator == "threshold" and threshold == 1:
                position[estimator] = position["seen"]
            else:
                position[estimator] = len(weights)
                weights.append(estimator_weights(counts, estimator, threshold))
            keys.append((n, estimator, float(threshold) if estimator == "threshold" else np.nan))
            positions.append(position[estimator])
    stacked = np.stack(weights)
    errors, on_stored = recall_error_parts(inputs, outputs, targets, probabilities, stacked)
    stored = np.count_nonzero(stacked, axis=1)
    return [{"n": n, "estimator": estimator, "threshold": threshold, "error": float(errors[index]),
             "stored_error": float(on_stored[index]), "stored": int(stored[index])}
            for (n, estimator, threshold), index in zip(keys, positions)]


def draw_table(block: dict, alpha: float, draw: int) -> pd.DataFrame:
    """Every row of one draw (embeddings, targets and sample stream): the top-k grid at every d, the three
    estimators at n_for_d_sweep for every d (sweep "d") and at every n of the grid at d_for_n_sweep
    (sweep "n"), for each vocabulary."""
    sizes = sample_sizes(block)
    stream = sorted({*sizes, block["n_for_d_sweep"]})
    memory = RandomMemory.draw(block["seed"], draw, max(block["vocabularies"]), block["outputs"], max(block["ds"]))
    rows = []
    for vocabulary in block["vocabularies"]:
        probabilities = zipf_probabilities(vocabulary, alpha)
        rng = np.random.default_rng([block["seed"], draw, SAMPLES, vocabulary, int(round(alpha * 1000))])
        counts = dict(zip(stream, nested_counts(probabilities, stream, rng)))
        for d in block["ds"]:
            inputs, outputs, targets = memory.at(d, vocabulary)
            grid = top_k_grid(d, vocabulary, block)
            top = (np.arange(vocabulary)[None, :] < grid[:, None]).astype(np.float64)
            optimum, optimum_on_stored = recall_error_parts(inputs, outputs, targets, probabilities, top)
            capacity = int(grid[int(np.argmin(optimum))])
            mine = [{"estimator": "top_k", "sweep": "d", "n": pd.NA, "threshold": np.nan, "error": float(error),
                     "stored_error": float(on_stored), "stored": int(k)}
                    for k, error, on_stored in zip(grid, optimum, optimum_on_stored)]
            sweeps = [("d", [block["n_for_d_sweep"]])] + ([("n", sizes)] if d == block["d_for_n_sweep"] else [])
            for sweep, ns in sweeps:
                found = _estimator_rows(inputs, outputs, targets, probabilities, {n: counts[n] for n in ns}, capacity)
                mine += [{**row, "sweep": sweep} for row in found]
            for row in mine:
                reference = np.nan if row["n"] is pd.NA else infinite_memory_error(probabilities, row["n"], block["outputs"])
                rows.append({"alpha": float(alpha), "vocabulary": vocabulary, "outputs": block["outputs"], "d": d, "seed": draw,
                             "capacity": capacity,
                             "best": row["estimator"] == "top_k" and row["stored"] == capacity,
                             "infinite_memory": reference, **row})
    columns = ["alpha", "vocabulary", "outputs", "estimator", "sweep", "d", "n", "seed", "error", "stored_error", "stored",
               "threshold", "capacity", "best", "infinite_memory"]
    table = pd.DataFrame(rows)[columns]
    return table.astype({"n": "Int64", "threshold": "float64", "infinite_memory": "float64"})


def scaling_table(block: dict, alpha: float) -> pd.DataFrame:
    """The long table of one α, one thread: one row per (vocabulary, estimator, sweep, d, n, seed), and one
    per (vocabulary, d, seed, k) of the top-k grid (estimator "top_k", n = NA, stored = k).

    Columns: alpha, vocabulary, outputs (M), estimator (counts | seen | threshold | top_k), sweep (n | d), d, n, seed,
    error (exact test error), stored_error (its part on the stored tokens, `recall_error_parts`), stored (tokens
    with q > 0), threshold (s, NaN unless threshold), capacity (k*(d): the best top-k of this vocabulary, d and
    draw, which the s rule uses), best (the top-k row at k*), infinite_memory ((1 − 1/M)·expected unseen mass at
    n; NaN for top_k)."""
    check_block(block)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        frames = [draw_table(block, alpha, draw) for draw in block["seeds"]]
    finally:
        torch.set_num_threads(threads)
    return pd.concat(frames, ignore_index=True)


def _fit_row(x, y, **keys) -> dict:
    """A loglog_slope row, or NaN slope when the range holds fewer than 3 points at 2 distinct x."""
    return {**keys, **loglog_slope_where_defined(x, y)}


def fit_table(tables: pd.DataFrame, block: dict) -> pd.DataFrame:
    """One row per fitted exponent on the largest vocabulary, seeds pooled (fits.loglog_slope).

    Against n (sweep "n", d = d_for_n_sweep): counts, seen and threshold over `fit_range_n`; slides'
    exponent −(α−1)/α; reference_slope is the slope of the closed-form infinite-memory error at the same n.
    Against d (n = n_for_d_sweep, every d): counts (−(α−1)/(2α)), threshold (−(α−1)); top_k: the optimum's
    error (quantity "error", −(α−1)) and its k*(d) (quantity "best_k", +1: "at most d memories"); the same
    fits over d ≥ x_min for each larger x_min that leaves 3 d's (against "d_range"), to show how the
    exponent depends on the range.
    Columns: alpha, vocabulary, estimator, quantity, against, d, n, x_min, x_max, slope, ci_low, ci_high,
    intercept, points, slides_exponent, reference_slope."""
    vocabulary = max(block["vocabularies"])
    rows = []
    for alpha in sorted(tables["alpha"].unique()):
        probabilities = zipf_probabilities(vocabulary, alpha)
        mine = tables[(tables["alpha"] == alpha) & (tables["vocabulary"] == vocabulary)]
        n_rate, keys = -(alpha - 1) / alpha, {"alpha": float(alpha), "vocabulary": vocabulary}
        along_n = mine[(mine["sweep"] == "n") & (mine["d"] == block["d_for_n_sweep"])]
        for estimator in ESTIMATORS:
            low, high = fit_range_n(probabilities, estimator, block)
            rows_n = along_n[(along_n["estimator"] == estimator) & along_n["n"].between(low, high)]
            ns = np.unique(rows_n["n"].to_numpy(dtype=float))
            reference = [infinite_memory_error(probabilities, n, block["outputs"]) for n in ns]
            rows.append({**_fit_row(rows_n["n"], rows_n["error"], **keys, estimator=estimator, quantity="error",
                                    against="n", d=block["d_for_n_sweep"], n=np.nan, x_min=low, x_max=high),
                         "slides_exponent": n_rate, "reference_slope": _fit_row(ns, reference)["slope"]})
        along_d = mine[mine["sweep"] == "d"]
        best = along_d[along_d["best"]]
        d_fits = [("counts", "error", along_d[along_d["estimator"] == "counts"], "error", -(alpha - 1) / (2 * alpha)),
                  ("threshold", "error", along_d[along_d["estimator"] == "threshold"], "error", -(alpha - 1)),
                  ("top_k", "error", best, "error", -(alpha - 1)),
                  ("top_k", "best_k", best, "stored", 1.0)]
        for estimator, quantity, selected, column, rate in d_fits:
            ds = sorted(block["ds"])
            for d_min in ds[:1] + ds[1:-2]:  # the full range (against d), then without the smallest d's (d_range)
                used = selected[selected["d"] >= d_min]
                rows.append({**_fit_row(used["d"], used[column], **keys, estimator=estimator, quantity=quantity,
                                        against="d" if d_min == min(block["ds"]) else "d_range", d=np.nan,
                                        n=np.nan if estimator == "top_k" else float(block["n_for_d_sweep"]),
                                        x_min=float(d_min), x_max=float(max(block["ds"]))),
                             "slides_exponent": rate, "reference_slope": np.nan})
    return pd.DataFrame(rows)
