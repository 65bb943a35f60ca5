"""The claims of Smart, Bietti & Sengupta (ICML 2025): where the paper states each, what it says and
how our value is measured from the study's tables. Case and model names come from each claim's
config block (`needs`), never from code. Frames: fig3 (training summary), bayes (closed forms of
the fig3 cases on the evaluation's fresh prompts), trained (the fig3 cases' trained models per seed on
the same fresh prompts), fig4a and fig4a_fit (context sweep), fig4b (subspace shift), fig5_steps
(descent steps), fig6 (landscapes on the training prompts), fig6_fresh (the same
on the evaluation's fresh prompts), fig8 (learned structure), theorem31_fit (Theorem 3.1's rate), datasets (the
study's sweep `datasets`: Fig. 3's cases trained on several datasets, learned scales and fresh-prompt MSE per
dataset and initialisation).

Intervals: per-seed values give a t-interval over seeds (icdenoise.records.claims); a Monte-Carlo mean
gives mean ± 1.96 standard errors; a statistic of several seeds' curves gives a bootstrap over seeds.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from icdenoise.records.claims import LEVEL, Claim, Frames, Measurement, mean_interval

CASE_MODEL = (("case", "fig3"), ("model", "fig3"))
OVER_DATASETS = (("case", "datasets"), ("model", "datasets"))
DATASET = "dataset.seed"  # the datasets sweep's key (the study's sweep `datasets`, built as onelayer_datasets)
FIG4A, FIG4B, FIG5, THEOREM31 = ((("", "fig4a"),), (("", "fig4b"),), (("", "fig5"),), (("", "theorem31"),))  # read alone
BOOTSTRAP_DRAWS = 2000
Z95 = 1.959964  # the standard normal's 97.5% quantile


def _bootstrap(statistic, samples: int, seed: int = 0) -> tuple[float, float]:
    """The central 95% interval of statistic(indices) over resamples of range(samples) with replacement."""
    rng = np.random.default_rng(seed)
    values = [statistic(rng.integers(0, samples, samples)) for _ in range(BOOTSTRAP_DRAWS)]
    return tuple(np.nanquantile(values, [(1 - LEVEL) / 2, (1 + LEVEL) / 2]))


def _fig3(frames: Frames, spec: dict, model: str | None = None) -> pd.DataFrame:
    case, model = spec["case"], model or spec["model"]
    rows = frames["fig3"][(frames["fig3"]["case"] == case) & (frames["fig3"]["model"] == model)]
    if rows.empty:
        raise KeyError(f"figures/fig3.parquet has no rows for case {case!r}, model {model!r}")
    return rows


def _dataset_rows(frames: Frames, spec: dict) -> pd.DataFrame:
    """The datasets sweep's rows of the claim's base case and model: one per dataset and initialisation."""
    table = frames["datasets"]
    rows = table[(table["base"] == spec["case"]) & (table["model"] == spec["model"])]
    if rows.empty:
        raise KeyError(f"the datasets sweep has no rows for case {spec['case']!r}, model {spec['model']!r}")
    return rows


def _over_datasets(column: str, absolute: bool = False):
    """The measure: per dataset, the mean of `column` (its absolute value: `absolute`) over the initialisations.
    Initialisations trained on one dataset share its noise, so the datasets are the independent draws and the
    interval is the t-interval over their means."""
    def measure(frames: Frames, spec: dict) -> Measurement:
        rows = _dataset_rows(frames, spec)
        values = rows[column].abs() if absolute else rows[column]
        means = values.groupby(rows[DATASET]).agg(lambda draws: draws.to_numpy().mean()).to_numpy()  # NaN stays NaN
        initialisations = rows.groupby(DATASET).size().min()
        return Measurement(means, mean_interval(means),
                           f"t-interval over {means.size} datasets' means of {initialisations} initialisations each")
    return measure


def _diverged(frames: Frames, spec: dict) -> str | None:
    """Inconclusive rule `diverged`: a training of the datasets sweep diverged, so some dataset has no value."""
    rows = _dataset_rows(frames, spec)
    failed = rows[rows["status"] != "trained"]
    if failed.empty:
        return None
    return "training diverged at " + ", ".join(f"dataset {int(row[DATASET])} seed {int(row['seed'])}"
                                                for _, row in failed.iterrows())


DIVERGED = {"diverged": _diverged}


def _bayes(frames: Frames, spec: dict, estimator: str) -> Measurement:
    """The closed form's Monte-Carlo MSE on the fresh prompts, ± 1.96 standard errors."""
    rows = frames["bayes"][(frames["bayes"]["case"] == spec["case"]) & (frames["bayes"]["estimator"] == estimator)]
    if rows.empty:
        raise KeyError(f"no closed-form evaluation of estimator {estimator!r} for case {spec['case']!r}")
    mse, sem = rows["mse"].iloc[0], rows["sem"].iloc[0]
    return Measurement(np.array([mse]), (mse - Z95 * sem, mse + Z95 * sem), f"± 1.96 standard errors over {rows['n_prompts'].iloc[0]} prompts")


def _paired_over_bayes(frames: Frames, spec: dict) -> np.ndarray:
    """Per seed: the trained model's MSE on the evaluation's fresh prompts over the Bayes posterior mean's on
    the same prompts (paired: both see every prompt)."""
    trained, bayes = frames["trained"], frames["bayes"]
    mine = trained[(trained["case"] == spec["case"]) & (trained["estimator"] == spec["model"])]
    oracle = bayes[(bayes["case"] == spec["case"]) & (bayes["estimator"] == "oracle")]
    if mine.empty or oracle.empty:
        raise KeyError(f"no fresh-prompt scores of model {spec['model']!r} and the oracle on case {spec['case']!r}")
    if mine["n_prompts"].iloc[0] != oracle["n_prompts"].iloc[0]:
        raise ValueError("the trained model and the oracle were scored on different prompt sets")
    return (mine.sort_values("seed")["mse"] / oracle["mse"].iloc[0]).to_numpy()


def _gamma_by_length(frames: Frames) -> pd.Series:
    return frames["fig4a"].groupby("L")["gamma"].mean()


def _gamma_trend(frames: Frames) -> Measurement:
    """Spearman correlation of L with |mean γ over seeds − γ*|, with a bootstrap over seeds."""
    from scipy.stats import spearmanr  # imported here: config validation loads this registry, and scipy.stats is slow

    table = frames["fig4a"].pivot_table(index="seed", columns="L", values="gamma")
    gamma_star = frames["fig4a"]["gamma_star"].iloc[0]

    def trend(seeds) -> float:
        return spearmanr(table.columns, np.abs(table.iloc[seeds].mean() - gamma_star))[0]

    return Measurement(np.array([trend(np.arange(len(table)))]), _bootstrap(trend, len(table)),
                       f"bootstrap over {len(table)} seeds")


def _power_law_slope(frames: Frames) -> Measurement:
    """The fitted log–log slope of the excess test MSE over L (fig4a_fit), with a bootstrap over seeds."""
    from icdenoise.studies.onelayer.context_sweep import power_law_fit

    table = frames["fig4a"]
    seeds = np.sort(table["seed"].unique())

    def slope(chosen) -> float:
        parts = [table[table["seed"] == seeds[index]].assign(seed=position) for position, index in enumerate(chosen)]
        try:
            return float(power_law_fit(pd.concat(parts))["slope"].iloc[0])
        except ValueError:  # a resample with fewer than two lengths of positive excess has no slope
            return np.nan

    return Measurement(frames["fig4a_fit"]["slope"].to_numpy(), _bootstrap(slope, len(seeds)), f"bootstrap over {len(seeds)} seeds")


def _long_context_gamma(frames: Frames) -> np.ndarray:
    """Per seed, γ averaged over the longest quarter of the swept context lengths."""
    lengths = np.sort(frames["fig4a"]["L"].unique())
    longest = lengths[-max(1, len(lengths) // 4):]
    rows = frames["fig4a"][frames["fig4a"]["L"].isin(longest)]
    return rows.groupby("seed")["gamma"].mean().to_numpy()


def _descent_mse(frames: Frames) -> pd.Series:
    steps = frames["fig5_steps"]
    return steps[steps["estimator"] == "descent"].set_index("steps")["mse"]


def _descent_draws(frames: Frames) -> pd.DataFrame:
    """Monte-Carlo draws of the descent curve: each step count's MSE ± its standard error, drawn
    independently (a parametric bootstrap); rows are draws, columns step counts."""
    steps = frames["fig5_steps"]
    rows = steps[steps["estimator"] == "descent"].set_index("steps")
    rng = np.random.default_rng(0)
    return pd.DataFrame(rows["mse"].to_numpy() + rows["sem"].to_numpy() * rng.standard_normal((BOOTSTRAP_DRAWS, len(rows))),
                        columns=rows.index)


def _iteration_ratio(frames: Frames) -> Measurement:
    """MSE after the most steps over MSE after one step, with a parametric bootstrap of the two."""
    curve, draws = _descent_mse(frames), _descent_draws(frames)
    ratios = draws[curve.index[-1]] / draws[1]
    return Measurement(np.array([curve.iloc[-1] / curve.loc[1]]), tuple(np.quantile(ratios, [(1 - LEVEL) / 2, (1 + LEVEL) / 2])),
                       "parametric bootstrap of the two Monte-Carlo means")


def _best_step_count(frames: Frames) -> Measurement:
    """The step count of the lowest MSE, with the 95% range of the argmin under a parametric bootstrap."""
    best = _descent_draws(frames).idxmin(axis=1).astype(float)
    return Measurement(np.array([float(_descent_mse(frames).idxmin())]), tuple(np.quantile(best, [(1 - LEVEL) / 2, (1 + LEVEL) / 2])),
                       "parametric bootstrap of the Monte-Carlo means")


def _valley_ratio(frames: Frames, spec: dict) -> np.ndarray:
    """Landscape MSE at each seed's trained (α, β) over the grid minimum."""
    mine = frames["fig6"][frames["fig6"]["case"] == spec["case"]]
    minimum = mine.loc[mine["kind"] == "minimum", "mse"].iloc[0]
    return mine.loc[mine["kind"] == "trained", "mse"].to_numpy() / minimum


def _fresh_valley_ratio(frames: Frames, spec: dict) -> np.ndarray:
    """Per seed, on the evaluation's fresh prompts (fig6_fresh): the landscape MSE at that seed's trained (α, β) over
    the grid minimum of the same fresh prompts."""
    mine = frames["fig6_fresh"][frames["fig6_fresh"]["case"] == spec["case"]]
    if mine.empty:
        raise KeyError(f"no fresh-prompt landscape of case {spec['case']!r}")
    minimum = mine.loc[mine["kind"] == "minimum", "mse"].iloc[0]
    return mine.loc[mine["kind"] == "trained"].sort_values("seed")["mse"].to_numpy() / minimum


def _structure(frames: Frames, spec: dict) -> np.ndarray:
    """Per seed, the smaller of the sign-aligned cosines of W_PV and W_KQ with eq. A.12."""
    mine = frames["fig8"][frames["fig8"]["model"] == spec["model"]]
    return mine.groupby("seed")["aligned_cosine"].min().to_numpy()


def _shift_ratio(frames: Frames) -> np.ndarray:
    """Per seed, at the longest evaluation context: the worst y over d' divided by y at the training d."""
    table = frames["fig4b"]
    longest = table[(table["stage"] == "final") & (table["L"] == table["L"].max())]
    worst = longest.groupby("seed")["loss_per_dim"].max()
    own = longest[longest["d_prime"] == longest["training_d"]].set_index("seed")["loss_per_dim"]
    return (worst / own).to_numpy()


def _test_ratio(frames: Frames, spec: dict) -> np.ndarray:
    """Per seed, final test MSE of `model` over that of `versus`."""
    mine = _fig3(frames, spec).set_index("seed")["final_test_mse"]
    other = _fig3(frames, spec, model=spec["versus"]).set_index("seed")["final_test_mse"]
    return (mine / other).to_numpy()


CLAIMS: dict[str, Claim] = {
    "fig3_linear_alpha_beta": Claim(
        "Sec. 3.2, Fig. 3(b)", "Linear attention on the linear case learns α·β = 0.327 ≈ 1/(σ0²+σ_z²) = 1/3.",
        lambda f, s: _fig3(f, s)["alpha_beta"].to_numpy(), CASE_MODEL),
    "fig3_linear_softmax_beta": Claim(
        "Sec. 3.2", "Softmax attention on the linear case learns a small key-query scale β ≈ 0.194 (up to sign).",
        lambda f, s: _fig3(f, s)["beta"].abs().to_numpy(), CASE_MODEL),
    "fig3_linear_softmax_alpha": Claim(
        "Sec. 3.2", "… and a compensating value scale α ≈ 1.607 (up to sign).",
        lambda f, s: _fig3(f, s)["alpha"].abs().to_numpy(), CASE_MODEL),
    "fig3_gmm_softmax_alpha": Claim(
        "Sec. 3.4", "Softmax attention on the Gaussian mixture learns α ≈ 1.",
        lambda f, s: _fig3(f, s)["alpha"].to_numpy(), CASE_MODEL),
    "fig3_gmm_softmax_beta": Claim(
        "Sec. 3.4", "… with β ≈ 5.127.",
        lambda f, s: _fig3(f, s)["beta"].to_numpy(), CASE_MODEL),
    "fig3_gmm_beta_below_heuristic": Claim(
        "Sec. 3.4", "The learned β is below the heuristic 1/σ_z² = 10.",
        lambda f, s: _fig3(f, s)["beta"].to_numpy(), CASE_MODEL),
    "fig3_sphere_softmax_near_bayes": Claim(
        "Sec. 3.3, Fig. 3(a)", "Softmax attention on the sphere nearly achieves the optimal MSE (ours: per seed, its MSE over "
        "the Bayes posterior mean's on the same fresh prompts).",
        _paired_over_bayes, CASE_MODEL),
    "prop2_linear_bayes_loss": Claim(
        "Prop. 2, eq. 4", "The Bayes loss of the linear case is d σ0² σ_z² / (σ0² + σ_z²) = 16/3 in total, 1/3 per coordinate.",
        lambda f, s: _bayes(f, s, "oracle"), (("case", "fig3"),)),
    "fig3_sphere_bayes_line": Claim(
        "Fig. 3(a), case 2 (authors' code)", "The published Bayes line of the sphere case, MSE/n = 0.0302; ours is eq. 6 with I_{(d+1)/2}/I_{(d−1)/2}.",
        lambda f, s: _bayes(f, s, "oracle"), (("case", "fig3"),)),
    "fig3_sphere_bayes_authors_orders": Claim(
        "PROTOCOL (authors' code)", "Eq. 6 with the authors' Bessel orders I_{7.5}/I_{6.5} reproduces their line 0.0302.",
        lambda f, s: _bayes(f, s, "oracle_authors_orders"), (("case", "fig3"),)),
    "fig4a_gamma_limit": Claim(
        "Sec. 3.2, Fig. 4(a)", "At large context lengths γ = α·β is close to γ* = 1/(σ0²+σ_z²) = 1/3 (mean over the "
        "longest quarter of the swept lengths).",
        lambda f, s: _long_context_gamma(f), needs=FIG4A),
    "fig4a_gamma_approaches_limit": Claim(
        "Fig. 4(a)", "γ approaches γ* as L grows: Spearman correlation of L with |mean γ − γ*| is negative.",
        lambda f, s: _gamma_trend(f), needs=FIG4A),
    "fig4a_power_law": Claim(
        "App. E, Fig. 4(a)", "The excess test MSE over Bayes falls as a power of L (fitted log–log slope < 0).",
        lambda f, s: _power_law_slope(f), needs=FIG4A),
    "fig4b_mild_loss_off_distribution": Claim(
        "Sec. 3.2, Fig. 4(b)", "Given sufficient context (the longest L), the d-trained model denoises other d' with mild loss: "
        "max over d' of y over y at d' = d.",
        lambda f, s: _shift_ratio(f), needs=FIG4B),
    "theorem31_excess_rate": Claim(
        "Theorem 3.1, App. E", "Eq. 13 with W_PV = I, W_KQ = I/σ_z² tends to the Bayes posterior mean on the sphere: its excess MSE "
        "over Bayes falls as 1/L (ours: fitted log–log slope over L ≥ fit_from, paired on the same fresh prompts).",
        lambda f, s: Measurement(f["theorem31_fit"]["slope"].to_numpy(), (f["theorem31_fit"]["ci_low"].iloc[0], f["theorem31_fit"]["ci_high"].iloc[0]),
                                 "95% confidence interval of the least-squares slope"), needs=THEOREM31),
    "sec4_one_step_beats_iteration": Claim(
        "Sec. 4, Fig. 5", "Iterating eq. 17 degrades the estimate: MSE after the most steps over MSE after one step.",
        lambda f, s: _iteration_ratio(f), needs=FIG5),
    "sec4_one_step_is_best": Claim(
        "Sec. 4, Fig. 5", "One step (the attention output) has the lowest MSE of all step counts k (stronger than the paper's "
        "'iteration can potentially degrade').",
        lambda f, s: _best_step_count(f), needs=FIG5),
    "fig6_sphere_trained_in_valley": Claim(
        "Sec. 3.3, Fig. 6", "The trained sphere weights lie in the valley: landscape MSE at trained (α, β) over the grid minimum.",
        _valley_ratio, (("case", "fig6"),)),
    "fig6_gmm_trained_in_valley": Claim(
        "Sec. 3.4, Fig. 6", "The trained gmm weights lie in the valley: landscape MSE at trained (α, β) over the grid minimum.",
        _valley_ratio, (("case", "fig6"),)),
    "fig6_sphere_trained_in_valley_fresh": Claim(
        "Sec. 3.3, Fig. 6", "'the plot shows that the trained network lies in the same valley of the loss landscape as the "
        "optimal predictor' (ours: per seed, the landscape MSE at the trained (α, β) over the grid minimum, both on the "
        "evaluation's fresh prompts, not the 800 training prompts).",
        _fresh_valley_ratio, (("case", "fig6"),)),
    "fig6_gmm_trained_in_valley_fresh": Claim(
        "Sec. 3.4, Fig. 6", "'we again find that the trained network lies in the anticipated global valley of the MSE loss "
        "landscape' (ours: per seed, the landscape MSE at the trained (α, β) over the grid minimum, both on the "
        "evaluation's fresh prompts, not the 800 training prompts).",
        _fresh_valley_ratio, (("case", "fig6"),)),
    "fig7_sphere_linear_like_softmax": Claim(
        "App. G, Fig. 7", "On the sphere, linear attention performs quite similarly to softmax (final test MSE ratio).",
        _test_ratio, (("case", "fig7"), ("model", "fig7"), ("versus", "fig7"))),
    "fig7_gmm_linear_worse": Claim(
        "App. G, Fig. 7", "On the Gaussian mixture, linear attention does less well than softmax (final test MSE ratio).",
        _test_ratio, (("case", "fig7"), ("model", "fig7"), ("versus", "fig7"))),
    "fig8_linear_structure": Claim(
        "App. H, Fig. 8", "Linear attention learns W_PV ∝ A⁻¹ and W_KQ ∝ (AAᵀ)⁻¹ (smaller sign-aligned cosine of the two).",
        _structure, (("model", "fig8"),)),
    "fig8_softmax_structure": Claim(
        "App. H, Fig. 8", "Softmax attention learns the same structure (smaller sign-aligned cosine of the two).",
        _structure, (("model", "fig8"),)),
    "fig3_linear_alpha_beta_datasets": Claim(
        "Sec. 3.2, Fig. 3(b)", "Linear attention on the linear case learns α·β = 0.327 ≈ 1/(σ0²+σ_z²) = 1/3 (ours: per "
        "dataset, the mean over initialisations).",
        _over_datasets("gamma"), OVER_DATASETS, DIVERGED),
    "fig3_linear_softmax_beta_datasets": Claim(
        "Sec. 3.2", "Softmax attention on the linear case learns a small key-query scale β ≈ 0.194 (up to sign; ours: per "
        "dataset, over initialisations).",
        _over_datasets("beta", absolute=True), OVER_DATASETS, DIVERGED),
    "fig3_linear_softmax_alpha_datasets": Claim(
        "Sec. 3.2", "… and a compensating value scale α ≈ 1.607 (up to sign; ours: per dataset, over initialisations).",
        _over_datasets("alpha", absolute=True), OVER_DATASETS, DIVERGED),
    "fig3_gmm_softmax_alpha_datasets": Claim(
        "Sec. 3.4", "Softmax attention on the Gaussian mixture learns α ≈ 1 (ours: per dataset, over initialisations).",
        _over_datasets("alpha"), OVER_DATASETS, DIVERGED),
    "fig3_gmm_softmax_beta_datasets": Claim(
        "Sec. 3.4", "… with β ≈ 5.127 (ours: per dataset, over initialisations).",
        _over_datasets("beta"), OVER_DATASETS, DIVERGED),
    "fig3_gmm_beta_below_heuristic_datasets": Claim(
        "Sec. 3.4", "The learned β is below the heuristic 1/σ_z² = 10 (ours: per dataset, over initialisations).",
        _over_datasets("beta"), OVER_DATASETS, DIVERGED),
    "fig3_sphere_softmax_near_bayes_datasets": Claim(
        "Sec. 3.3, Fig. 3(a)", "Softmax attention on the sphere nearly achieves the optimal MSE (ours: per dataset, the mean "
        "over initialisations of its MSE over the Bayes posterior mean's on the same fresh prompts).",
        _over_datasets("ratio_to_bayes"), OVER_DATASETS, DIVERGED),
    "fig8_linear_alpha_beta": Claim(
        "App. H, eq. A.12", "For linear attention the fitted scales satisfy α·β = 1/(σ0²+σ_z²) = 1/3.",
        lambda f, s: f["fig8"][f["fig8"]["model"] == s["model"]].groupby("seed")["alpha_beta"].first().to_numpy(),
        (("model", "fig8"),)),
}
