"""The checkable statements of the associative-memory slides (Bietti 2025, "Associative Memories as a Building Block in Transformers"):
where each is stated, what it says and how our value is measured from the study's tables. Frames:
capacity (bisected capacities per map, memory, d and seed), capacity_fit (fitted exponents), capacity_confirmatory and
capacity_confirmatory_fit (the same on the confirmatory twins' fresh seeds), zipf_confirmatory and
zipf_confirmatory_fit (the Zipf tables of the twins' fresh draws), variance
(the cross-talk statistics), zipf_fit (Zipf exponents), zipf_optimum (the best number of stored tokens per d),
induction / induction_order (the induction-head runs; induction_shakespeare / induction_shakespeare_order the same on
Shakespeare's character bigrams; induction_order_fresh / induction_order_shakespeare_fresh the 2-layer curves on
memory.induction_order's fresh seeds), low_rank_regime (the searches of memory.low_rank_regime), factual / factual_needed / factual_dynamics (factual
recall), planted / planted_boundary (the planted-token threshold), population_order / population_steps (three population
steps) and noisy_logits (slide 23's one-step logits on noisy inputs). Each claim's test is in the config block
`memory.claims`, written before the result was seen (docs/memory.md)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from icdenoise.maths.fits import loglog_slope_where_defined
from icdenoise.records.claims import LEVEL, Claim, Frames, Measurement
from icdenoise.studies.memory.planted_boundary import MIN_LENGTHS, boundary_slope, slope_above_floor


def fitted_slope(memory: str, against: str, map_name: str | None = None):
    """The measure: one fitted exponent of capacity_fit."""
    def measure(frames: Frames, spec: dict) -> np.ndarray:
        fits = frames["capacity_fit"]
        rows = fits[(fits["memory"] == memory) & (fits["against"] == against)]
        if map_name is not None:
            rows = rows[rows["map"] == map_name]
        if len(rows) != 1:
            raise ValueError(f"capacity_fit holds {len(rows)} rows for memory {memory!r}, map {map_name!r}, against {against!r}")
        return _fit(rows)
    return measure


def _fit(rows: pd.DataFrame) -> Measurement:
    """A fitted slope with its 95% confidence interval (icdenoise.maths.fits)."""
    return Measurement(rows["slope"].to_numpy(), (rows["ci_low"].iloc[0], rows["ci_high"].iloc[0]),
                       "95% confidence interval of the least-squares slope")


def _capacity_ratio(frames: Frames, numerator: str, denominator: str) -> pd.Series:
    table = frames["capacity"].pivot_table(index=["map", "d", "seed"], columns="memory", values="capacity")
    return (table[numerator] / table[denominator]).dropna()


def per_d_slopes(memory: str):
    """The measure: the fitted exponents of capacity against m at each fixed d where one was fitted (capacity_fit
    rows against m with a finite slope)."""
    def measure(frames: Frames, spec: dict) -> np.ndarray:
        fits = frames["capacity_fit"]
        rows = fits[(fits["memory"] == memory) & (fits["against"] == "m") & np.isfinite(fits["slope"])]
        if rows.empty:
            raise ValueError(f"capacity_fit holds no per-d fit of memory {memory!r}: each d needs 3 points at 2 widths")
        return rows.sort_values("at_d")["slope"].to_numpy()
    return measure


def _gradient_over_hebbian(frames: Frames, spec: dict) -> np.ndarray:
    """Per (map, d, seed): the one-step memory's capacity over the Hebbian one's."""
    return _capacity_ratio(frames, "gradient_step", "hebbian").to_numpy()


def _noisy_over_clean_at_largest_d(frames: Frames, spec: dict) -> np.ndarray:
    """Per seed at the largest d: the noisy-input one-step capacity over the clean one-step capacity."""
    ratios = _capacity_ratio(frames, "gradient_step_noisy", "gradient_step")
    largest = ratios.index.get_level_values("d").max()
    return ratios[ratios.index.get_level_values("d") == largest].to_numpy()


def _gamma_means(frames: Frames, spec: dict) -> np.ndarray:
    """Per grid point: the simulated mean of γ_{z,f(z)}."""
    table = frames["variance"]
    return table[table["output"] == "correct"]["mean"].to_numpy()


def _variance_over_exact(frames: Frames, spec: dict) -> np.ndarray:
    """Per grid point and output (correct, wrong): the simulated Var γ over the exact variance."""
    return frames["variance"]["over_exact"].to_numpy()


def _largest_variance_over_slides(frames: Frames, spec: dict) -> np.ndarray:
    """The largest simulated Var γ over the slides' n_y/d + (N − n_y)/d², over every grid point."""
    return np.array([frames["variance"]["over_slides"].max()])


def _largest_variance_over_slides_with_interval(frames: Frames, spec: dict) -> Measurement:
    """The largest simulated Var γ over the slides' n_y/d + (N − n_y)/d², over every grid point, with a 95%
    interval for the largest true ratio: each of the K grid points gets the t-interval of its variance
    (variance ± t · variance_se, t at 1 − 0.05/(2K) on draws − 1 degrees of freedom: Bonferroni over the K points,
    so that all K intervals hold at once with probability ≥ 95%), divided by its slides' expression; when they all
    hold, the largest true ratio lies between the largest lower end and the largest upper end."""
    from scipy.stats import t  # imported here: config validation loads this module, and scipy.stats is slow

    table = frames["variance"]
    if not np.all(np.isfinite(table["variance_se"])):
        raise ValueError("variance holds a grid point without a standard error (one draw): raise memory.variance.samples")
    quantile = t.ppf(1 - (1 - LEVEL) / (2 * len(table)), table["draws"].to_numpy() - 1)
    half = quantile * table["variance_se"].to_numpy() / table["slides_variance"].to_numpy()
    ratio = table["over_slides"].to_numpy()
    return Measurement(np.array([ratio.max()]), (float((ratio - half).max()), float((ratio + half).max())),
                       f"largest lower and upper ends over the {len(table)} grid points' simultaneous (Bonferroni) "
                       "95% t-intervals, from each variance's standard error over independent memories")


def zipf_slope(estimator: str, against: str, quantity: str = "error"):
    """The measure: one fitted Zipf exponent of zipf_fit at the claim's α (largest vocabulary, seeds pooled)."""
    def measure(frames: Frames, spec: dict) -> np.ndarray:
        fits = frames["zipf_fit"]
        rows = fits[(fits["alpha"] == spec["alpha"]) & (fits["estimator"] == estimator) & (fits["against"] == against)
                    & (fits["quantity"] == quantity)]
        if len(rows) != 1 or not np.isfinite(rows["slope"].iloc[0]):
            raise ValueError(f"zipf_fit holds no finite {estimator} {quantity} slope against {against} at α = {spec['alpha']}")
        return _fit(rows)
    return measure


def _range_dependent(frames: Frames, spec: dict, estimator: str, quantity: str) -> str | None:
    """Inconclusive rule `range_dependent`: fitted over d ≥ each larger smallest d (zipf_fit rows against
    d_range), the slope gives another verdict than over the whole range - the verdict rests on the range."""
    from icdenoise.records.claims import verdict

    fits = frames["zipf_fit"]
    rows = fits[(fits["alpha"] == spec["alpha"]) & (fits["estimator"] == estimator) & (fits["quantity"] == quantity)
                & fits["against"].isin(["d", "d_range"])].sort_values("x_min")
    rows = rows[np.isfinite(rows["slope"])]
    verdicts = {row.x_min: verdict(row.slope, spec["paper_value"], spec["comparison"], spec["tolerance"]) for row in rows.itertuples()}
    if len(set(verdicts.values())) > 1:
        shown = ", ".join(f"d ≥ {x_min:g}: {slope:.3g}" for x_min, slope in zip(rows["x_min"], rows["slope"]))
        return f"the verdict changes with the fitted d range ({shown})"
    return None


def range_dependent(estimator: str, quantity: str = "error"):
    """The rule `range_dependent` for one d fit."""
    return lambda frames, spec: _range_dependent(frames, spec, estimator, quantity)


def _same_as_seen(frames: Frames, spec: dict) -> str | None:
    """Inconclusive rule `same_as_seen`: the threshold memory's n-slope equals that of q = 1{seen} (the
    threshold is s = 1 over the whole range), so it is no independent test of Theorem ③."""
    fits = frames["zipf_fit"]
    rows = fits[(fits["alpha"] == spec["alpha"]) & (fits["against"] == "n") & (fits["quantity"] == "error")]
    slopes = rows.set_index("estimator")["slope"]
    if np.isclose(slopes["threshold"], slopes["seen"], rtol=0, atol=1e-9):
        return f"its slope {slopes['threshold']:.4g} equals q = 1{{seen}}'s: the threshold is s = 1 here"
    return None


def _every_token_seen(frames: Frames, spec: dict) -> str | None:
    """Inconclusive rule `all_seen`: the error is exactly 0 in every draw - every token was seen and stored, so
    the memory term the claim is about never enters."""
    if np.all(_seen_error_small_vocabulary(frames, spec) == 0):
        return "the error is exactly 0 in every draw: every token was seen, so the d-term is not exercised"
    return None


def _largest_best_k_over_d(frames: Frames, spec: dict) -> np.ndarray:
    """Per draw: the largest k*(d)/d over the d sweep, k*(d) the best top-k memory (largest vocabulary)."""
    table = frames["zipf"]
    rows = table[(table["alpha"] == spec["alpha"]) & (table["vocabulary"] == table["vocabulary"].max()) & table["best"]]
    return (rows["stored"] / rows["d"]).groupby(rows["seed"]).max().to_numpy()


def _seen_n_sweep_small_vocabulary(frames: Frames, spec: dict) -> pd.DataFrame:
    """The zipf rows of q = 1{seen} over the n sweep (at its d), on the smallest vocabulary, at the claim's α."""
    table = frames["zipf"]
    return table[(table["alpha"] == spec["alpha"]) & (table["vocabulary"] == table["vocabulary"].min())
                 & (table["sweep"] == "n") & (table["estimator"] == "seen")]


def _seen_error_small_vocabulary(frames: Frames, spec: dict) -> np.ndarray:
    """Per draw: the error of q = 1{seen} on the smallest vocabulary at the n sweep's d and largest n."""
    rows = _seen_n_sweep_small_vocabulary(frames, spec)
    return rows[rows["n"] == rows["n"].max()]["error"].to_numpy()


def _largest_stored_error_small_vocabulary(frames: Frames, spec: dict) -> np.ndarray:
    """Per draw: the largest error of q = 1{seen} on the tokens it stored (stored_error), over the n sweep, on the
    smallest vocabulary at the n sweep's d: Theorem ②'s memory term itself, apart from the unseen tokens' n-term."""
    return _seen_n_sweep_small_vocabulary(frames, spec).groupby("seed")["stored_error"].max().to_numpy()


ZIPF_CLAIM_ALPHAS = {"15": 1.5, "20": 2.0}  # claim-id suffix → the α it is measured at


def at_alpha(measure, alpha: float):
    """The measure with the claim's α bound (the claim id names it, e.g. `_a15`)."""
    return lambda frames, spec: measure(frames, {**spec, "alpha": alpha})


ZIPF_CLAIMS: dict[str, tuple[str, str, object]] = {
    "zipf_seen_n_exponent": ("slide 32, Theorem ②", "q = 1{z seen}: L ≲ n^{−(α−1)/α} + d^{−k} (ours: fitted slope of the exact error "
                             "on n, within the interference-free range)", zipf_slope("seen", "n")),
    "zipf_threshold_n_exponent": ("slide 32, Theorem ③", "q = 1{count ≥ s}: L ≲ n^{−(α−1)/α} + d^{−α+1} (ours: fitted slope on n)",
                                  zipf_slope("threshold", "n")),
    "zipf_counts_n_exponent": ("slide 32, Theorem ①", "q = counts: L ≲ n^{−(α−1)/α} + d^{−(α−1)/(2α)} (ours: fitted slope on n, "
                               "where the head token's interference is negligible)", zipf_slope("counts", "n")),
    "zipf_counts_d_exponent": ("slide 32, Theorem ①", "q = counts: the d-term d^{−(α−1)/(2α)} (ours: fitted slope on d at n = "
                               "n_for_d_sweep)", zipf_slope("counts", "d")),
    "zipf_threshold_d_exponent": ("slide 32, Theorem ③", "q = 1{count ≥ s}: the d-term d^{−α+1} (ours: fitted slope on d)",
                                  zipf_slope("threshold", "d")),
    "zipf_optimum_d_exponent": ("slide 32", "can store at most d memories, approximation error d^{−α+1} (ours: slope on d of the "
                                "best top-k memory's error)", zipf_slope("top_k", "d")),
    "zipf_optimum_best_k_exponent": ("slide 32", "the best number of stored tokens grows ∝ d (ours: slope on d of k*(d))",
                                     zipf_slope("top_k", "d", "best_k")),
    "zipf_optimum_at_most_d": ("slide 32", "can store at most d memories (ours: per draw, the largest k*(d)/d over the d sweep)",
                               _largest_best_k_over_d),
    "zipf_seen_d_gg_N": ("slide 32, Theorem ②", "for d ≫ N the memory term is negligible (ours: error of q = 1{seen} on the "
                         "small vocabulary at the largest n, per draw)", _seen_error_small_vocabulary),
    "zipf_seen_d_gg_N_stored": ("slide 32, Theorem ②", "for d ≫ N the memory term is negligible (ours: per draw, the largest "
                                "error of q = 1{seen} on the tokens it stored, over the n sweep, on the small vocabulary "
                                "at the n sweep's d)", _largest_stored_error_small_vocabulary),
}


ZIPF_RULES = {  # claim name → its own inconclusive rules
    "zipf_threshold_n_exponent": {"same_as_seen": _same_as_seen},
    "zipf_seen_d_gg_N": {"all_seen": _every_token_seen},
    "zipf_counts_d_exponent": {"range_dependent": range_dependent("counts")},
    "zipf_threshold_d_exponent": {"range_dependent": range_dependent("threshold")},
    "zipf_optimum_d_exponent": {"range_dependent": range_dependent("top_k")},
    "zipf_optimum_best_k_exponent": {"range_dependent": range_dependent("top_k", "best_k")},
}


def final_accuracy(layers: int, optimizer: str):
    """The measure: per seed, the test accuracy on second trigger occurrences at the last recorded step."""
    def measure(frames: Frames, spec: dict) -> np.ndarray:
        curves = frames["induction"]
        rows = curves[(curves["layers"] == layers) & (curves["optimizer"] == optimizer)]
        return rows.loc[rows.groupby("seed")["step"].idxmax(), "accuracy"].to_numpy()
    return measure


def slides_order(optimizer: str):
    """The measure: per 2-layer seed, 1 if W_OV², W_KQ², W_KQ¹ each reach the rank-recall threshold, in that
    order with no ties at the recording resolution (induction_order's `rank_matches_slides`), else 0. The
    rank-recall probe resolves the order; the recall probe of W_KQ² moves in steps of 1/K."""
    def measure(frames: Frames, spec: dict) -> np.ndarray:
        order = frames["induction_order"]
        rows = order[(order["layers"] == 2) & (order["optimizer"] == optimizer)]
        return rows["rank_matches_slides"].astype(float).to_numpy()
    return measure



SLIDES_ORDER_STEPS = ("rank_learned_wov2", "rank_learned_wkq2", "rank_learned_wkq1")  # induction_order's columns, in slide
# 20's order (induction.probes.SLIDES_ORDER): the step each rank-recall probe first reaches its threshold, NaN if never


def order_outcome(steps) -> float:
    """Whether one run shows an order, from the steps at which its probes were learned, listed in that order (NaN:
    not learned within the run's budget): 1 if every probe was learned and each strictly after the one before; 0
    if the probes learned already break it (two learned at the same recorded step, one learned before an earlier
    one, or one learned while an earlier one never is); NaN (undecided) if those learned keep the order and only
    the last ones are missing, since a longer run could still learn them in order."""
    steps = np.asarray(steps, dtype=float)
    learned = np.isfinite(steps)
    kept = steps.size if learned.all() else int(np.argmin(learned))  # the probes learned before the first missing one
    if learned[kept:].any() or np.any(np.diff(steps[:kept]) <= 0):
        return 0.0
    return 1.0 if kept == steps.size else np.nan


def _order_outcomes(frames: Frames, optimizer: str) -> pd.Series:
    """Seed → `order_outcome` of its 2-layer run (rank-recall probes, slide 20's order): 1, 0 or NaN (undecided)."""
    order = frames["induction_order"]
    rows = order[(order["layers"] == 2) & (order["optimizer"] == optimizer)].set_index("seed")
    return pd.Series({seed: order_outcome(steps) for seed, steps in rows[list(SLIDES_ORDER_STEPS)].iterrows()}, dtype=float)


def slides_order_every_seed(optimizer: str):
    """The measure: the outcome (`order_outcome`) of each 2-layer seed whose outcome is decided, 1 if W_OV², W_KQ²,
    W_KQ¹ reach the rank-recall threshold in that order with no ties at the recording resolution, 0 if the probes
    that reached it already break the order; a seed whose probes keep the order so far but whose W_KQ¹ (say) is not
    learned within the budget is left out here and makes the claim inconclusive by its rule `undecided_seed` when the
    decided seeds all show the order. Every seed must show it (a 0 anywhere decides); the interval shown is the
    exact 95% interval of the fraction of decided seeds in order (`clopper_pearson`), not a t-interval over 0/1
    outcomes."""
    def measure(frames: Frames, spec: dict) -> Measurement:
        outcomes = _order_outcomes(frames, optimizer).dropna().to_numpy(float)
        if outcomes.size == 0:
            return Measurement(np.array([np.nan]))
        return Measurement(outcomes, clopper_pearson(int(outcomes.sum()), outcomes.size),
                           "Clopper-Pearson interval of the fraction of decided seeds in order")
    return measure


def clopper_pearson(successes: int, trials: int) -> tuple[float, float]:
    """The exact (Clopper-Pearson) interval of a binomial proportion at level LEVEL: the (1 − LEVEL)/2 quantile of
    Beta(k, n − k + 1) and the (1 + LEVEL)/2 quantile of Beta(k + 1, n − k), with 0 for k = 0 and 1 for k = n."""
    from scipy.stats import beta  # imported here: config validation loads this module, and scipy.stats is slow

    tail = (1 - LEVEL) / 2
    low = float(beta.ppf(tail, successes, trials - successes + 1)) if successes > 0 else 0.0
    high = float(beta.ppf(1 - tail, successes + 1, trials - successes)) if successes < trials else 1.0
    return low, high


def undecided_seed(optimizer: str):
    """Inconclusive rule `undecided_seed`: a seed's outcome is undecided (`order_outcome` NaN) while no decided seed
    breaks the order, so the seeds left could still turn the verdict."""
    def rule(frames: Frames, spec: dict) -> str | None:
        outcomes = _order_outcomes(frames, optimizer)
        undecided = outcomes.index[outcomes.isna()]
        if undecided.empty or (outcomes.dropna() < 1).any():
            return None
        return (f"seed{'s' if len(undecided) > 1 else ''} {', '.join(map(str, undecided))}: the probes learned keep the "
                "order, but a later one is not learned within the step budget")
    return rule

INDUCTION_CLAIM_RUNS = {  # claim id → (layers, optimizer) of the runs it reads
    "induction_two_layer_adam_accuracy": (2, "adam"), "induction_two_layer_sgd_accuracy": (2, "sgd"),
    "induction_one_layer_adam_accuracy": (1, "adam"), "induction_one_layer_sgd_accuracy": (1, "sgd"),
    "induction_one_layer_adam_accuracy_measured": (1, "adam"), "induction_one_layer_sgd_accuracy_measured": (1, "sgd"),
    "induction_probe_order_adam": (2, "adam"),
    "induction_probe_order_adam_every_seed": (2, "adam"), "induction_probe_order_sgd_every_seed": (2, "sgd"),
}



def _finite_fit(rows: pd.DataFrame, x: str, y: str) -> Measurement:
    """The log-log slope of `y` on `x` over the rows where `y` is finite, with its 95% interval (NaN when
    fewer than 3 points at 2 x's; the rule `off_grid` then makes the claim inconclusive)."""
    finite = rows[np.isfinite(rows[y].to_numpy(float))]
    fit = loglog_slope_where_defined(finite[x], finite[y])
    return Measurement(np.array([fit["slope"]]), (fit["ci_low"], fit["ci_high"]),
                       f"95% confidence interval of the least-squares slope over {len(finite)} crossings")


def _needed(frames: Frames, model: str) -> pd.DataFrame:
    needed = frames["factual_needed"]
    return needed[needed["model"] == model]


def _parameters_against_facts(frames: Frames, spec: dict) -> Measurement:
    """The log-log slope of the parameters at which recall crosses the threshold against S·R (attention + MLP)."""
    return _finite_fit(_needed(frames, "attention_mlp"), "facts", "parameters")


def _width_times_d_against_facts(frames: Frames, spec: dict) -> Measurement:
    """The log-log slope of m*·d, m* the MLP width at which recall crosses the threshold, against S·R (attention + MLP)."""
    grid = frames["factual"]
    (d,) = grid.loc[grid["model"] == "attention_mlp", "d"].unique()
    rows = _needed(frames, "attention_mlp")
    return _finite_fit(rows.assign(storage=rows["needed"] * d), "facts", "storage")


def _d_against_relations_and_answers(frames: Frames, spec: dict) -> Measurement:
    """The log-log slope of the d at which recall crosses the threshold against R + A_max (attention only)."""
    return _finite_fit(_needed(frames, "attention_only"), "relations_plus_answers", "needed")


def off_grid(model: str):
    """Inconclusive rule `off_grid`: fewer than 3 grid rows of `model` have a crossing on their grid (the
    others never reach the threshold, or reach it at the first point), so no slope can be fitted."""
    def rule(frames: Frames, spec: dict) -> str | None:
        rows = _needed(frames, model)
        missing = rows[rows["reason"] != ""]
        if len(rows) - len(missing) >= 3:
            return None
        return "; ".join([f"only {len(rows) - len(missing)} of {len(rows)} grid rows cross the threshold on their grid (a slope needs 3)",
                          *(f"S = {row.subjects}, R = {row.relations}, A = {row.answers}: {row.reason}" for row in missing.itertuples())])
    return rule


def _hallucination_depth(frames: Frames, spec: dict) -> np.ndarray:
    """Per seed: the smallest KL to p(a|r), over its start log R, among the recorded steps whose KL to
    p(a|s,r) is still at least ½ log A - how close the model comes to predicting p(a|r) while it still
    ignores s (slide 13's intermediate phase)."""
    curves = frames["factual_dynamics"]
    values = []
    for _, run in curves.groupby("seed", sort=True):
        relations, answers = int(run["relations"].iloc[0]), int(run["answers"].iloc[0])
        phase = run[(run["step"] > 0) & (run["kl_fact"] >= 0.5 * np.log(answers))]
        values.append(phase["kl_relation"].min() / np.log(relations) if len(phase) else np.nan)
    return np.array(values)


def _no_phase_recorded(frames: Frames, spec: dict) -> str | None:
    """Inconclusive rule `no_phase_recorded`: a seed has no recorded step after the start with KL to p(a|s,r)
    still at least ½ log A, so the records cannot show the phase either way."""
    seeds = sorted(frames["factual_dynamics"]["seed"].unique())
    missing = [str(seed) for seed, depth in zip(seeds, _hallucination_depth(frames, spec)) if np.isnan(depth)]
    return f"no such recorded step for seed{'s' * (len(missing) > 1)} {', '.join(missing)}" if missing else None


def _final_fact_kl(frames: Frames, spec: dict) -> np.ndarray:
    """Per seed: the KL to p(a|s,r) at the last step over its start log(R·A)."""
    curves = frames["factual_dynamics"].sort_values("step")
    runs = curves.groupby("seed", sort=True)
    return (runs["kl_fact"].last() / runs["kl_fact"].first()).to_numpy()


def _without_regime(frames: Frames) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The planted grid and boundary tables without the regime grid's rows (`planted.labelled_grid_points`): the
    (d, T) and n grids that `planted_boundary_slope_in_t` was registered on."""
    grid = frames["planted"]
    grid = grid[grid["grid"] != "regime"]
    pairs = set(zip(grid["length"], grid["samples"]))
    boundary = frames["planted_boundary"]
    return grid, boundary[[pair in pairs for pair in zip(boundary["length"], boundary["samples"])]]


def _planted_slope_in_length(frames: Frames, spec: dict) -> Measurement:
    """The log-log slope of d* (recall's crossing of the success threshold, per seed) against T at the (d, T)
    grid's n, seeds pooled (`planted_boundary.boundary_slope`); the regime grid's rows are left out."""
    grid, boundary = _without_regime(frames)
    samples = int(grid["samples"].mode().iloc[0])
    slope, low, high = boundary_slope(boundary, samples)
    points = int(np.isfinite(boundary.loc[boundary["samples"] == samples, "d_star"]).sum())
    return Measurement(np.array([slope]), (low, high), f"95% confidence interval of the least-squares slope over {points} crossings")


def _planted_off_grid(frames: Frames, spec: dict) -> str | None:
    """Inconclusive rule `off_grid`: fewer than 3 finite d* at 2 lengths of the (d, T) grid."""
    if np.isfinite(_planted_slope_in_length(frames, spec).values[0]):
        return None
    _, boundary = _without_regime(frames)
    missing = boundary[boundary["reason"] != ""]
    return "too few crossings on the d grid: " + "; ".join(f"T = {row.length}, n = {row.samples}, seed {row.seed}: {row.reason}"
                                                            for row in missing.itertuples())


def _regime_samples(frames: Frames) -> int | None:
    """The n of the planted regime grid (`memory.planted.regime.samples`), or None when this run has none."""
    grid = frames["planted"]
    regime = grid.loc[grid["grid"] == "regime", "samples"].unique()
    if len(regime) > 1:
        raise ValueError(f"the planted regime grid holds several n: {sorted(regime)}")
    return int(regime[0]) if len(regime) else None


def _regime_fit(frames: Frames, spec: dict) -> dict | None:
    """`planted_boundary.slope_above_floor` at the regime grid's n with the claim's `floor_factor`; None without a
    regime grid."""
    samples = _regime_samples(frames)
    if samples is None:
        return None
    return {**slope_above_floor(frames["planted_boundary"], samples, spec["floor_factor"]), "samples": samples}


def _planted_slope_above_floor(frames: Frames, spec: dict) -> Measurement:
    """Slide 24: the log-log slope in T of d* (recall's crossing of the success threshold, per seed), seeds pooled,
    at the regime grid's n over the lengths where the theorem's T-term is in its 4/3 regime and at least
    floor_factor·√N (`planted_boundary.above_floor`); NaN where fewer than MIN_LENGTHS such lengths cross."""
    fit = _regime_fit(frames, spec)
    if fit is None or not np.isfinite(fit["slope"]):
        return Measurement(np.array([np.nan]))
    return Measurement(np.array([fit["slope"]]), (fit["ci_low"], fit["ci_high"]),
                       f"95% confidence interval of the least-squares slope over {fit['points']} crossings at T = "
                       f"{', '.join(map(str, fit['crossing']))}, n = {fit['samples']}")


def _too_few_above_floor(frames: Frames, spec: dict) -> str | None:
    """Inconclusive rule `too_few_above_floor`: fewer than MIN_LENGTHS lengths of the regime grid's n are above the
    floor (no regime grid in this run counts as none), so no slope in T can be read where slide 24's T-term binds."""
    fit = _regime_fit(frames, spec)
    if fit is None:
        return "this run has no regime grid (memory.planted.regime.lengths is empty): no length is above the floor"
    if len(fit["qualifying"]) >= MIN_LENGTHS:
        return None
    shown = ", ".join(map(str, fit["qualifying"])) or "none"
    return (f"{len(fit['qualifying'])} length{'s' * (len(fit['qualifying']) != 1)} at n = {fit['samples']} "
            f"above {spec['floor_factor']:g}·√N with N²/(Tn) < 1 ({shown}); a slope needs {MIN_LENGTHS}")


def _regime_off_grid(frames: Frames, spec: dict) -> str | None:
    """Inconclusive rule `off_grid`: at least MIN_LENGTHS lengths are above the floor, but fewer than MIN_LENGTHS of
    them have a finite d* (recall never crosses the threshold on the d grid, or already at its first d)."""
    fit = _regime_fit(frames, spec)
    if fit is None or len(fit["qualifying"]) < MIN_LENGTHS or len(fit["crossing"]) >= MIN_LENGTHS:
        return None
    boundary = frames["planted_boundary"]
    missing = boundary[(boundary["samples"] == fit["samples"]) & boundary["length"].isin(fit["qualifying"])
                       & (boundary["reason"] != "")]
    return (f"only {len(fit['crossing'])} of the {len(fit['qualifying'])} lengths above the floor cross the threshold on "
            "the d grid: " + "; ".join(f"T = {row.length}, seed {row.seed}: {row.reason}" for row in missing.itertuples()))


POPULATION_ORDER = ("wov2", "wkq2", "wkq1")  # slide 21: "first on W_OV², then W_KQ², then W_KQ¹"
RANK_CHANCE = 0.5  # the rank recall of a matrix unrelated to the target memory (probes.rank_recall)


def own_step_rises(run: pd.DataFrame) -> dict[str, dict]:
    """For one seed's population steps (stages 0-3): per probe of POPULATION_ORDER, the stage that trained its
    matrix (`own`, from the `trained` column; NaN if none), the stage of its largest rise of rank recall between
    consecutive stages (`largest`, NaN when that largest rise is shared by two stages) and its rank recall after
    its own stage (`after`)."""
    run = run.sort_values("stage")
    stages = run["stage"].to_numpy()
    own = dict(zip(run["trained"], stages))
    result = {}
    for name in POPULATION_ORDER:
        rank = run[f"rank_{name}"].to_numpy(float)
        rises = np.diff(rank)
        best = np.flatnonzero(rises == rises.max()) if rises.size else np.array([])
        largest = float(stages[1:][best[0]]) if best.size == 1 else np.nan
        stage = own.get(name, np.nan)
        after = float(rank[stages == stage][0]) if np.isfinite(stage) and np.any(stages == stage) else np.nan
        result[name] = {"own": float(stage), "largest": largest, "after": after}
    return result


def _population_each_at_own_step(frames: Frames, spec: dict) -> np.ndarray:
    """Per seed: 1 if the three steps ran in slide 21's order (W_OV², W_KQ², W_KQ¹ at stages 1, 2, 3) and each probe's
    rank recall rises most at the step on its own matrix, strictly (no other step rises as much), to above chance
    (RANK_CHANCE: a matrix unrelated to the memory), else 0. No threshold of ours: the order of the rises, and
    chance, the least that "recovers the memory" can mean. (Each probe reads its own matrix, which moves only at
    its own step, so the rise can only come at that step; what can fail is a step that does not move its probe
    above chance, or a run in another order.)"""
    values = []
    for _, run in frames["population_steps"].groupby("seed", sort=True):
        rises = own_step_rises(run)
        values.append(float(all(rise["own"] == stage and rise["largest"] == stage and rise["after"] > RANK_CHANCE
                                for stage, rise in zip((1, 2, 3), (rises[name] for name in POPULATION_ORDER)))))
    return np.array(values)


def noisy_logit_means(column: str):
    """The measure: per (d, draw) of noisy_logits, the draw's mean of u_kᵀ W₁ (e_y + p_t)/(η/N) over the right
    pairs (column `correct`, y = k) or the wrong ones (`wrong`, y ≠ k)."""
    def measure(frames: Frames, spec: dict) -> np.ndarray:
        return frames["noisy_logits"][column].to_numpy(float)
    return measure


def _population_in_order(frames: Frames, spec: dict) -> np.ndarray:
    """Per seed: 1 if each rank-recall probe first reaches the threshold right after the step on its own
    matrix (W_OV² after step 1, W_KQ² after step 2, W_KQ¹ after step 3), else 0."""
    return frames["population_order"]["in_order"].astype(float).to_numpy()

CLAIMS: dict[str, Claim] = {
    "injective_capacity_d2": Claim("slide 9", "f injective: up to N ≈ d² associations (ours: fitted slope of log capacity on log d, "
                                   "Hebbian memory)", fitted_slope("hebbian", "d", "injective")),
    "binary_capacity_d": Claim("slide 9", "f*(z) ∈ {0, 1}: up to N ≈ d associations (ours: fitted slope on log d)",
                               fitted_slope("hebbian", "d", "binary")),
    "few_outputs_capacity_d": Claim("slide 9", "few outputs: N ≈ d (ours: fitted slope on log d, M = few_outputs)",
                                    fitted_slope("hebbian", "d", "few")),
    "gradient_step_equals_hebbian": Claim("slide 8", "one gradient step from W = 0 is a memory with near-perfect recall, as the "
                                          "Hebbian one (ours: its capacity over the Hebbian capacity, per map, d and seed)",
                                          _gradient_over_hebbian),
    "noisy_step_capacity_rate": Claim("slide 23", "one gradient step still recalls from x = e_y + p_t (ours: fitted slope of its "
                                      "capacity on log d)", fitted_slope("gradient_step_noisy", "d", "injective")),
    "noisy_step_capacity_ratio": Claim("slide 23", "u_kᵀ W₁ (e_y + p_t) ≈ (η/N) 1{y = k}: noisy inputs are recalled as clean ones "
                                       "(ours: noisy over clean one-step capacity at the largest d, per seed)",
                                       _noisy_over_clean_at_largest_d),
    "low_rank_capacity_md": Claim("slide 9", "low rank W₁ᵀW₂, m ≤ d: N ≈ m d (ours: fitted slope of log capacity on log m·d)",
                                  fitted_slope("low_rank", "m·d")),
    "low_rank_capacity_md_per_d": Claim("slide 9", "low rank W₁ᵀW₂, m ≤ d: N ≈ m d at each d (ours: fitted slope of log capacity "
                                        "on log m at each fixed d; the interval is over the d's)", per_d_slopes("low_rank")),
    "mlp_capacity_md": Claim("slide 9", "a one-hidden-layer MLP stores N ≈ m d associations for any width m (ours: fitted slope of "
                             "the trained MLP's log capacity on log m·d, M = 2 outputs)", fitted_slope("mlp", "m·d")),
    "gamma_mean": Claim("slide 9", "E[γ_{z,y}] = 1 for y = f*(z) (ours: simulated mean per grid point)", _gamma_means),
    "gamma_variance_bound": Claim("slide 9", "Var[γ_{z,y}] ≲ n_y/d + (N − n_y)/d² (ours: the largest simulated variance over "
                                  "that expression, over the grid)", _largest_variance_over_slides),
    "gamma_variance_bound_with_interval": Claim("slide 9", "Var[γ_{z,y}] ≲ n_y/d + (N − n_y)/d² (ours: the largest simulated "
                                                "variance over that expression, over the grid, with a simultaneous 95% "
                                                "interval from each grid point's Monte-Carlo standard error)",
                                                _largest_variance_over_slides_with_interval),
    "gamma_variance_exact": Claim("slide 9", "Var[γ_{z,y}] as computed exactly (docs/memory.md) - the check behind the '≲' (ours: "
                                  "simulated over exact variance, per grid point and output)", _variance_over_exact),
    **{f"{name}_a{suffix}": Claim(location, statement + f" at α = {alpha:g}", at_alpha(measure, alpha),
                                  rules={rule: at_alpha(check, alpha) for rule, check in ZIPF_RULES.get(name, {}).items()})
       for name, (location, statement, measure) in ZIPF_CLAIMS.items() for suffix, alpha in ZIPF_CLAIM_ALPHAS.items()},
    "induction_two_layer_adam_accuracy": Claim("slide 16", "2-layer transformer succeeds: ~99% accuracy on the in-context output "
                                               "predictions (ours: attention-only, frozen random embeddings, synthetic bigrams, Adam; "
                                               "test accuracy at the last step, per seed)", final_accuracy(2, "adam")),
    "induction_two_layer_sgd_accuracy": Claim("slide 16", "… the same with SGD (momentum 0.9)", final_accuracy(2, "sgd")),
    "induction_one_layer_adam_accuracy": Claim("slide 16", "1-layer transformer fails: ~55% accuracy on in-context output predictions "
                                               "(ours: Adam, test accuracy at the last step)", final_accuracy(1, "adam")),
    "induction_one_layer_sgd_accuracy": Claim("slide 16", "… the same with SGD", final_accuracy(1, "sgd")),
    "induction_one_layer_adam_accuracy_measured": Claim("slide 16", "1-layer transformer fails: ~55% on the in-context outputs, for "
                                                        "Shakespeare's bigrams and a full 1-layer transformer, the outputs "
                                                        "'random' (ours: Adam, test accuracy at the last step, per seed, "
                                                        "reported with no verdict)", final_accuracy(1, "adam")),
    "induction_one_layer_sgd_accuracy_measured": Claim("slide 16", "… the same with SGD", final_accuracy(1, "sgd")),
    "induction_probe_order_adam": Claim("slide 20", "natural learning order W_OV² → W_KQ² → W_KQ¹ (ours: per 2-layer Adam seed, 1 if "
                                        "the probes first reach the threshold in that order, else 0)", slides_order("adam")),
    "induction_probe_order_adam_every_seed": Claim("slide 20", "natural learning order W_OV² → W_KQ² → W_KQ¹ (ours: every 2-layer "
                                                   "Adam seed whose order is decided within the budget shows it: 1 if the "
                                                   "probes first reach the threshold in that order, 0 if those reached "
                                                   "break it)", slides_order_every_seed("adam"),
                                                   rules={"undecided_seed": undecided_seed("adam")}),
    "induction_probe_order_sgd_every_seed": Claim("slide 20", "… the same with SGD", slides_order_every_seed("sgd"),
                                                  rules={"undecided_seed": undecided_seed("sgd")}),
    "factual_parameters_scale_with_facts": Claim("slide 11", "total parameters scale with the number of facts S·R (ours: attention + "
                                                 "MLP, S = R, H·d_h ≈ S + R; fitted log-log slope of the parameters at which "
                                                 "recall crosses the threshold, seeds pooled, against S·R)", _parameters_against_facts,
                                                 rules={"off_grid": off_grid("attention_mlp")}),
    "factual_mlp_storage_scales_with_facts": Claim("slide 11", "attention + MLP succeeds when m·d ≳ S·R (ours: fitted log-log slope of "
                                                   "m*·d against S·R, m* the MLP width at which recall crosses the threshold, "
                                                   "seeds pooled, at fixed d)", _width_times_d_against_facts,
                                                   rules={"off_grid": off_grid("attention_mlp")}),
    "factual_attention_only_d": Claim("slide 11", "attention-only: succeeds when d ≳ R + A_max (ours: fitted log-log slope of the d at "
                                      "which recall crosses the threshold against R + A_max, at fixed S and H·d_h)",
                                      _d_against_relations_and_answers, rules={"off_grid": off_grid("attention_only")}),
    "factual_hallucination_phase": Claim("slide 13", "an intermediate phase predicts p(a|r) instead of p(a|s,r) - 'hallucination' (ours: "
                                         "per seed, the smallest KL to p(a|r) over its start log R while the KL to p(a|s,r) is "
                                         "still ≥ ½ log A)", _hallucination_depth, rules={"no_phase_recorded": _no_phase_recorded}),
    "factual_dynamics_converges": Claim("slide 13", "global convergence to zero loss (ours: per seed, the final KL to p(a|s,r) over "
                                        "its start log(R·A))", _final_fact_kl),
    "planted_boundary_slope_in_t": Claim("slide 24", "the head learns iff d ≫ (T²/N)·min{1, (N²/(T n))^(2/3)} (ours: fitted log-log "
                                         "slope in T of d*, the d at which recall after the three steps crosses the success "
                                         "threshold, at fixed N and n; the theorem's own slope over the grid's T)",
                                         _planted_slope_in_length, rules={"off_grid": _planted_off_grid}),
    "population_steps_in_order": Claim("slides 20-21", "three gradient steps - W_OV², then W_KQ², then W_KQ¹ - recover the induction "
                                       "head's memories, each at its own step (ours: per seed, 1 if each rank-recall probe first "
                                       "reaches the threshold right after its own step, else 0)", _population_in_order),
    "population_steps_each_at_own_step": Claim("slides 20-21", "three gradient steps on the population loss, first on W_OV², then "
                                               "W_KQ², then W_KQ¹, recover the induction head's memories, each at its own "
                                               "step (ours: per seed, 1 if the steps ran in that order and each probe's rank "
                                               "recall rises most at its own step, strictly, to above chance 1/2, else 0)",
                                               _population_each_at_own_step),
    "noisy_step_logit_expectation_correct": Claim("slide 23", "y ~ Unif([N]), t ~ Unif([T]), x = e_y + p_t; one gradient step: "
                                                  "u_kᵀ W₁ (e_y + p_t) ≈ (η/N) 1{y = k} + O(1/N²), at y = k (ours: "
                                                  "u_yᵀ W₁ (e_y + p_t) over η/N, Monte Carlo over the embeddings, the "
                                                  "positions and t; per draw the mean over the N tokens)",
                                                  noisy_logit_means("correct")),
    "noisy_step_logit_expectation_wrong": Claim("slide 23", "… at y ≠ k: the logit is O(1/N²), 0 at the scale η/N (ours: "
                                                "u_kᵀ W₁ (e_y + p_t) over η/N for k ≠ y; per draw the mean over the "
                                                "N(N − 1) wrong pairs)", noisy_logit_means("wrong")),
    "planted_boundary_slope_in_t_above_floor": Claim("slide 24", "the head learns iff d ≫ (T²/N)·min{1, (N²/(T n))^(2/3)}, "
                                                     "assuming d ≫ √N ≫ 1 and n ≫ N (ours: fitted log-log slope in T of d*, "
                                                     "the d at which recall after the three steps crosses the success "
                                                     "threshold, seeds pooled, at the regime grid's n, read only at the "
                                                     "lengths where N²/(T n) < 1 and the T-term (T²/N)·(N²/(T n))^(2/3) is "
                                                     "at least floor_factor·√N)", _planted_slope_above_floor,
                                                     rules={"too_few_above_floor": _too_few_above_floor,
                                                            "off_grid": _regime_off_grid}),
}

def on_tables(measure, tables: dict[str, str]):
    """The measure (or inconclusive rule) reading each frame `tables[name]` in place of `name` (never `name` itself:
    without its fresh table, it finds neither)."""
    def on_fresh(frames: Frames, spec: dict):
        kept = {name: frame for name, frame in frames.items() if name not in tables}
        return measure({**kept, **{name: frames[fresh] for name, fresh in tables.items() if fresh in frames}}, spec)
    return on_fresh


def twin(original: str, tables: dict[str, str]) -> Claim:
    """The confirmatory twin of `original`: its statement, measure and rules, reading the tables of fresh seeds or
    draws (`tables`: each table the original reads → the fresh one)."""
    claim = CLAIMS[original]
    return replace(claim, measure=on_tables(claim.measure, tables),
                   rules={name: on_tables(rule, tables) for name, rule in claim.rules.items()})


# The confirmatory twins of the claims marked exploratory (docs/claims.md): the capacity claims on the capacity search
# on fresh seeds (memory.capacity_confirmatory), the Zipf d-exponent claims on fresh Zipf draws (memory.zipf_confirmatory).
CAPACITY_TWIN_TABLES = {"capacity": "capacity_confirmatory", "capacity_fit": "capacity_confirmatory_fit"}
CAPACITY_TWINS = {f"{original}_confirmatory": original
                  for original in ("binary_capacity_d", "few_outputs_capacity_d", "gradient_step_equals_hebbian")}
ZIPF_TWIN_TABLES = {"zipf": "zipf_confirmatory", "zipf_fit": "zipf_confirmatory_fit"}
ZIPF_TWINS = {f"{original}_confirmatory": original for original in (
    "zipf_counts_d_exponent_a15", "zipf_counts_d_exponent_a20", "zipf_threshold_d_exponent_a15", "zipf_threshold_d_exponent_a20",
    "zipf_optimum_d_exponent_a20", "zipf_optimum_best_k_exponent_a15", "zipf_optimum_best_k_exponent_a20")}
CLAIMS.update({**{name: twin(original, CAPACITY_TWIN_TABLES) for name, original in CAPACITY_TWINS.items()},
               **{name: twin(original, ZIPF_TWIN_TABLES) for name, original in ZIPF_TWINS.items()}})


# The induction head in the slides' own setting, π_b the character bigrams of Shakespeare's plays
# (memory.induction_shakespeare, trained with SGD): the claims its runs decide, each the synthetic setting's measure and
# rules read on the Shakespeare runs' tables. The synthetic setting's SGD claims are superseded by these (config:
# superseded_by).
SHAKESPEARE_TABLES = {"induction": "induction_shakespeare", "induction_order": "induction_shakespeare_order"}
SHAKESPEARE = "the slides' setting, π_b the character bigrams of Shakespeare's plays"
SHAKESPEARE_CLAIMS = {  # claim id → (the synthetic setting's claim it reads as, its statement)
    "induction_two_layer_sgd_accuracy_shakespeare": (
        "induction_two_layer_sgd_accuracy",
        f"2-layer transformer succeeds: ~99% accuracy on the in-context output predictions (ours, {SHAKESPEARE}: "
        "attention-only, frozen random embeddings, SGD with momentum 0.9; test accuracy at the last step, per seed)"),
    "induction_probe_order_sgd_every_seed_shakespeare": (
        "induction_probe_order_sgd_every_seed",
        f"natural learning order W_OV² → W_KQ² → W_KQ¹ (ours, {SHAKESPEARE}: every 2-layer SGD seed whose order is "
        "decided within the budget shows it: 1 if the probes first reach the threshold in that order, 0 if those "
        "reached break it)"),
}
SHAKESPEARE_CLAIM_RUNS = {name: INDUCTION_CLAIM_RUNS[original] for name, (original, _) in SHAKESPEARE_CLAIMS.items()}
CLAIMS.update({name: replace(twin(original, SHAKESPEARE_TABLES), statement=statement)
               for name, (original, statement) in SHAKESPEARE_CLAIMS.items()})


# Issue 55: each slide statement once, in its regime, on fresh seeds (docs/memory_claims_as_stated.md).

def crossing_step(steps, values, level: float) -> float:
    """The step at which a recorded curve first reaches `level`, interpolated linearly between the last record below
    it and the first at or above it; the first recorded step if the curve starts at or above it; NaN if it never
    reaches it."""
    steps, values = np.asarray(steps, dtype=float), np.asarray(values, dtype=float)
    order = np.argsort(steps, kind="stable")
    steps, values = steps[order], values[order]
    reached = np.flatnonzero(values >= level)
    if reached.size == 0:
        return float("nan")
    first = int(reached[0])
    if first == 0:
        return float(steps[0])
    before, after = values[first - 1], values[first]
    return float(steps[first - 1] + (level - before) / (after - before) * (steps[first] - steps[first - 1]))


ORDER_PROBES = ("rank_wov2", "rank_wkq2", "rank_wkq1")  # slide 20's order, as rank-recall columns of the curves


def crossing_gaps(curves: pd.DataFrame, optimizer: str, level: float) -> pd.DataFrame:
    """Per 2-layer seed trained with `optimizer`: the steps at which the rank-recall probes of W_OV², W_KQ², W_KQ¹
    cross `level` (`crossing_step`) and the two gaps of slide 20's order, `first` = t(W_KQ²) − t(W_OV²) and
    `second` = t(W_KQ¹) − t(W_KQ²); both positive when the probes cross in the slide's order."""
    rows = curves[(curves["layers"] == 2) & (curves["optimizer"] == optimizer)]
    table = []
    for seed, run in rows.groupby("seed", sort=True):
        crossed = [crossing_step(run["step"], run[column], level) for column in ORDER_PROBES]
        table.append({"seed": seed, **dict(zip(ORDER_PROBES, crossed)), "first": crossed[1] - crossed[0],
                      "second": crossed[2] - crossed[1]})
    return pd.DataFrame(table, columns=["seed", *ORDER_PROBES, "first", "second"])


ORDER_CONDITIONS = (("induction_order_fresh", "adam"), ("induction_order_fresh", "sgd"),
                    ("induction_order_shakespeare_fresh", "sgd"))  # (curves table, optimizer) of each condition


def smallest_mean_gap(gaps: list[np.ndarray], resamples: int, seed: int) -> tuple[float, tuple[float, float]]:
    """The smallest of the mean gaps (one array of per-seed gaps per condition and gap) and the 95% percentile
    bootstrap interval of that smallest mean: each resample draws every condition's seeds with replacement (the two
    gaps of one condition share the draw: `gaps` comes in pairs per condition)."""
    rng = np.random.default_rng(seed)
    smallest = min(float(np.mean(values)) for values in gaps)
    pairs = [(gaps[index], gaps[index + 1]) for index in range(0, len(gaps), 2)]
    draws = np.full(resamples, np.inf)
    for first, second in pairs:
        picks = rng.integers(0, first.size, size=(resamples, first.size))
        draws = np.minimum(draws, np.minimum(first[picks].mean(axis=1), second[picks].mean(axis=1)))
    tail = (1 - LEVEL) / 2
    return smallest, (float(np.quantile(draws, tail)), float(np.quantile(draws, 1 - tail)))


def _order_gaps(frames: Frames, spec: dict) -> list[tuple[str, str, pd.DataFrame]]:
    """Each condition's `crossing_gaps`; none where the run trains no fresh seeds (memory.induction_order.seeds empty:
    the ledger then reads no table of them)."""
    return [(table, optimizer, crossing_gaps(frames[table], optimizer, spec["level"]))
            for table, optimizer in ORDER_CONDITIONS if table in frames]


def _smallest_order_gap(frames: Frames, spec: dict) -> Measurement:
    """Slide 20's order W_OV² → W_KQ² → W_KQ¹ as a smooth quantity: in each condition (synthetic π_b with Adam and
    with SGD, Shakespeare's π_b with SGD) and for each of the two consecutive pairs, the mean over seeds of the gap
    between the pair's crossing steps (`crossing_gaps`); the value is the smallest of these six means (positive when
    every condition shows both steps of the order on average), with its bootstrap interval over seeds. NaN when a
    probe does not cross the level within the budget, or where the run trains no fresh seeds (the rule `not_crossed`)."""
    conditions = _order_gaps(frames, spec)
    gaps = [gap[part].to_numpy(float) for _, _, gap in conditions for part in ("first", "second")]
    if len(conditions) < len(ORDER_CONDITIONS) or any(values.size == 0 or not np.all(np.isfinite(values)) for values in gaps):
        return Measurement(np.array([np.nan]))
    value, interval = smallest_mean_gap(gaps, spec["resamples"], spec["bootstrap_seed"])
    means = "; ".join(f"{table.removesuffix('_fresh').removeprefix('induction_order').strip('_') or 'synthetic'} "
                      f"{optimizer}: {gap['first'].mean():.4g}, {gap['second'].mean():.4g}" for table, optimizer, gap in conditions)
    return Measurement(np.array([value]), interval,
                       f"95% percentile bootstrap over seeds ({spec['resamples']} resamples) of the smallest of the six mean "
                       f"gaps in steps (W_KQ² − W_OV², W_KQ¹ − W_KQ² per condition: {means})")


def _not_crossed(frames: Frames, spec: dict) -> str | None:
    """Inconclusive rule `not_crossed`: a probe of some seed never reaches the level within the step budget, so that
    seed's gap is undefined; or the run trains no fresh seeds, so that no probe crosses in it."""
    if not all(table in frames for table, _ in ORDER_CONDITIONS):
        return ("this run trains no fresh seeds (memory.induction_order.seeds is empty), so no probe crosses the level "
                "in it; the named runs memory_full, memory_d64 and memory_pi_o train them")
    missing = [f"{table} {optimizer} seed {row.seed}" for table, optimizer, gap in _order_gaps(frames, spec)
               for row in gap.itertuples() if not (np.isfinite(row.first) and np.isfinite(row.second))]
    return f"a probe does not reach rank recall {spec['level']:g} within the budget: {', '.join(missing)}" if missing else None


def in_low_rank_regime(widths, ds, factor: float) -> np.ndarray:
    """Whether each (m, d) is in slide 9's low-rank regime m ≫ ln N, read as m ≥ factor · 2 ln(m·d): a wrong output's
    score against the right one is about 1/√m, so beating the N − 1 wrong outputs needs m ≳ 2 ln N (docs/memory.md,
    "Low-rank memory"), and the slides' own N ≈ m·d bounds ln N from above."""
    widths, ds = np.asarray(widths, dtype=float), np.asarray(ds, dtype=float)
    return widths >= factor * 2 * np.log(widths * ds)


def _low_rank_regime_rows(frames: Frames, spec: dict) -> pd.DataFrame:
    table = frames["low_rank_regime"]
    return table[in_low_rank_regime(table["m"], table["d"], spec["regime_factor"])]


def _low_rank_slope_in_regime(frames: Frames, spec: dict) -> Measurement:
    """The log-log slope of the low-rank capacity on m·d over the (d, m, seed) points of the fresh regime grid in the
    regime (`in_low_rank_regime`), seeds pooled, with its 95% confidence interval; NaN with fewer than 3 points."""
    rows = _low_rank_regime_rows(frames, spec)
    fit = loglog_slope_where_defined(rows["params_md"], rows["capacity"])
    return Measurement(np.array([fit["slope"]]), (fit["ci_low"], fit["ci_high"]),
                       f"95% confidence interval of the least-squares slope over {len(rows)} searches in the regime")


def _too_few_in_regime(frames: Frames, spec: dict) -> str | None:
    """Inconclusive rule `too_few_in_regime`: fewer than 3 searches at 2 values of m·d lie in the regime."""
    rows = _low_rank_regime_rows(frames, spec)
    if len(rows) >= 3 and rows["params_md"].nunique() >= 2:
        return None
    return f"{len(rows)} searches at {rows['params_md'].nunique()} values of m·d in the regime m ≥ {spec['regime_factor']:g}·2 ln(m d)"


def _smallest_rank_after_own_step(frames: Frames, spec: dict) -> np.ndarray:
    """Per seed: the smallest, over W_OV², W_KQ², W_KQ¹, of the probe's rank recall after the step on its own matrix."""
    return np.array([min(rise["after"] for rise in own_step_rises(run).values())
                     for _, run in frames["population_steps"].groupby("seed", sort=True)])


def _on_both_alphas(measure):
    """The measure at each α of ZIPF_CLAIM_ALPHAS, its values concatenated (α = 1.5 first)."""
    return lambda frames, spec: np.concatenate([np.atleast_1d(measure(frames, {**spec, "alpha": alpha}))
                                                for alpha in ZIPF_CLAIM_ALPHAS.values()])


CLAIMS.update({
    "induction_learning_order_gap": Claim(
        "slide 20", "natural learning order: W_OV² first, W_KQ² next, W_KQ¹ last (ours: per 2-layer seed, the steps at "
        "which the rank-recall probes cross the level, interpolated between records, and the gaps W_KQ² − W_OV² and "
        "W_KQ¹ − W_KQ²; the smallest mean gap over the conditions - synthetic π_b with Adam and with SGD, Shakespeare's "
        "π_b with SGD - on fresh seeds, with its bootstrap interval over seeds)", _smallest_order_gap,
        rules={"not_crossed": _not_crossed}),
    "low_rank_capacity_md_in_regime": Claim(
        "slide 9", "low rank W₁ᵀW₂, m ≤ d: N ≈ m d (ours: fitted slope of log capacity on log m·d over the fresh regime "
        "grid's searches with m ≫ ln N, read as m ≥ regime_factor · 2 ln(m d), seeds pooled)", _low_rank_slope_in_regime,
        rules={"too_few_in_regime": _too_few_in_regime}),
    "population_steps_rank_after_own_step": Claim(
        "slides 20-21", "three gradient steps on the population loss, first on W_OV², then W_KQ², then W_KQ¹, recover the "
        "induction head's memories (ours: per seed, the smallest rank recall of the three probes after the step on its "
        "own matrix; reported with no verdict)", _smallest_rank_after_own_step),
    "gamma_variance_over_slides": Claim(
        "slide 9", "Var[γ_{z,y}] ≲ n_y/d + (N − n_y)/d² (ours: the largest simulated variance over that expression, over "
        "the grid, with a simultaneous 95% interval; reported with no verdict)", _largest_variance_over_slides_with_interval),
    "zipf_seen_memory_term": Claim(
        "slide 32, Theorem ②", "for d ≫ N the memory term is negligible (ours: per fresh draw and α = 1.5, 2, the largest "
        "error of q = 1{seen} on the tokens it stored, over the n sweep, on the small vocabulary at the n sweep's d; "
        "reported with no verdict)",
        on_tables(_on_both_alphas(_largest_stored_error_small_vocabulary), ZIPF_TWIN_TABLES)),
    "zipf_optimum_best_k_over_d": Claim(
        "slide 32", "can store at most d memories (ours: per fresh draw and α = 1.5, 2, the largest k*(d)/d over the d "
        "sweep; reported with no verdict)", on_tables(_on_both_alphas(_largest_best_k_over_d), ZIPF_TWIN_TABLES)),
})


def _reads(claim_id: str) -> tuple[str, ...]:
    """The sub-blocks of `memory` whose settings a claim's tables are computed from (its `needs`)."""
    if claim_id == "induction_learning_order_gap":
        return ("induction", "induction_shakespeare", "induction_order")
    if claim_id in SHAKESPEARE_CLAIMS:
        return ("induction_shakespeare",)
    if claim_id in CAPACITY_TWINS:
        return ("capacity", "capacity_confirmatory")
    if claim_id in ZIPF_TWINS or claim_id in ("zipf_seen_memory_term", "zipf_optimum_best_k_over_d"):
        return ("zipf", "zipf_confirmatory")
    if claim_id == "low_rank_capacity_md_in_regime":
        return ("capacity", "low_rank_regime")
    prefixes = (("low_rank_", ("capacity", "low_rank")), ("mlp_", ("mlp",)), ("gamma_", ("variance", "capacity")),
                ("zipf_", ("zipf",)), ("induction_", ("induction",)), ("factual_dynamics", ("factual_dynamics",)),
                ("factual_hallucination", ("factual_dynamics",)), ("factual_", ("factual",)), ("planted_", ("planted",)),
                ("population_", ("population_steps",)), ("noisy_step_logit", ("noisy_logits",)), ("", ("capacity",)))
    return next(blocks for prefix, blocks in prefixes if claim_id.startswith(prefix))


CLAIMS.update({name: replace(claim, needs=claim.needs + tuple(("", block) for block in _reads(name)))
               for name, claim in CLAIMS.items()})
