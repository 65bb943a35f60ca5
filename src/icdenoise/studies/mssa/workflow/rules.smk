# Attention-only transformers via unrolled subspace denoising (Wang et al., ICML 2025): Fig. 4 (SNR per
# layer), where Theorem 3.1 holds, Fig. 6 / Table 5 in-context regression, leaderboard rows and the claims
# ledger. Config block `mssa`; code icdenoise.studies.mssa; protocol and choices in docs/mssa.md.

MSSA = config["mssa"]
STUDY = "mssa"
DRAWINGS = "icdenoise.studies.mssa.plots"
REGRESSION = MSSA["regression"]


wildcard_constraints:
    regression_task="|".join(REGRESSION["tasks"]),
    architecture="|".join(REGRESSION["models"]),
    training_seed=r"\d+",


job_rule(
    "simulate_mssa_snr",
    "Fig. 4: SNR (eq. 6) per layer of unrolled MSSA with each draw's own bases, for every δ and φ.",
    "scripts/simulate_mssa_snr.py",
    "<figures>/mssa/snr.parquet",
    params=dict(block=canonical(MSSA["snr"])),
    cache=True,
)

job_rule(
    "sweep_mssa_snr",
    "Where Theorem 3.1 holds: η, p and δ one at a time, the per-layer SNR ratio and the first departing layer.",
    "scripts/sweep_mssa_snr.py",
    dict(layers="<results>/mssa/sweep.parquet", departures="<results>/mssa/departures.parquet"),
    params=dict(base=canonical(MSSA["snr"]), sweep=canonical(MSSA["sweep"])),
    cache=True,
)

job_rule(
    "sweep_mssa_softmax",
    "Plain softmax φ: η, p and N one at a time, the SNR per layer and how many layers keep it above SNR₀.",
    "scripts/sweep_mssa_softmax.py",
    dict(layers="<results>/mssa/softmax_sweep.parquet", gains="<figures>/mssa/softmax_sweep.parquet"),
    params=dict(base=canonical(MSSA["snr"]), sweep=canonical(MSSA["softmax_sweep"])),
    cache=True,
)

RUN = "<results>/mssa/regression/{regression_task}/{architecture}/seed{training_seed}"
job_rule(
    "train_mssa_regression",
    "Fig. 6: one in-context model trained on one regression task from one seed, scored on the fresh test prompts.",
    "scripts/train_mssa_regression.py",
    dict(errors=f"{RUN}/errors.parquet", curve=f"{RUN}/curve.parquet"),
    params=dict(
        block=canonical(REGRESSION),
        layers=lambda wildcards: REGRESSION["models"][wildcards.architecture]["layers"],
    ),
    cache=True,
)

job_rule(
    "fit_mssa_regression_baselines",
    "Fig. 6's baselines on the same test prompts: least squares, ridge and Lasso at every number of examples.",
    "scripts/fit_mssa_regression_baselines.py",
    "<results>/mssa/regression/{regression_task}/baselines.parquet",
    params=dict(block=canonical(REGRESSION)),
    cache=True,
)

RUNS_OF_EVERY_MODEL = dict(
    regression_task=REGRESSION["tasks"], architecture=list(REGRESSION["models"]), training_seed=REGRESSION["seeds"]
)
job_rule(
    "summarise_mssa_regression",
    "Fig. 6's tables: every model's and baseline's test error by number of examples, and the training curves.",
    "scripts/summarise_mssa_regression.py",
    dict(errors="<figures>/mssa/regression.parquet", curves="<results>/mssa/training.parquet"),
    input=dict(
        errors=expand(rules.train_mssa_regression.output.errors, **RUNS_OF_EVERY_MODEL),
        baselines=expand(rules.fit_mssa_regression_baselines.output[0], regression_task=REGRESSION["tasks"]),
        curves=expand(rules.train_mssa_regression.output.curve, **RUNS_OF_EVERY_MODEL),
    ),
    local=True,
)

score_rule(
    "score_mssa_denoisers",
    STUDY,
    MSSA["leaderboard"]["case"],
    "icdenoise.studies.mssa.known_bases:leaderboard_denoisers",
    {key: MSSA["leaderboard"][key] for key in ("layers", "eta", "tau")},
)

figure_rule(
    "plot_mssa_snr",
    STUDY,
    "mssa/snr",
    "Fig. 4: SNR per layer of unrolled MSSA with known bases.",
    f"{DRAWINGS}.snr",
    named_tables(rules.simulate_mssa_snr.output),
    "report/snr.rst",
)
figure_rule(
    "plot_mssa_sweep",
    STUDY,
    "mssa/sweep",
    "Where Theorem 3.1 holds: the per-layer SNR ratio and the attention leakage, sweeping η, p and δ.",
    f"{DRAWINGS}.sweep",
    dict(sweep=rules.sweep_mssa_snr.output.layers, departures=rules.sweep_mssa_snr.output.departures),
    "report/sweep.rst",
)
figure_rule(
    "plot_mssa_softmax_sweep",
    STUDY,
    "mssa/softmax_sweep",
    "Plain softmax φ: the SNR gain per layer and how long it stays above SNR₀, sweeping η, p and N.",
    f"{DRAWINGS}.softmax_sweep",
    named_tables(rules.sweep_mssa_softmax.output),
    "report/softmax_sweep.rst",
)
figure_rule(
    "plot_mssa_regression",
    STUDY,
    "mssa/regression",
    "Fig. 6 (scaled): in-context linear and sparse regression.",
    f"{DRAWINGS}.regression",
    dict(regression=rules.summarise_mssa_regression.output.errors),
    "report/regression.rst",
)
figure_rule(
    "plot_mssa_training",
    STUDY,
    "mssa/training",
    "The in-context models' training curves.",
    f"{DRAWINGS}.training",
    dict(training=rules.summarise_mssa_regression.output.curves),
    "report/training.rst",
)


# Sec. 4.2.1 / Fig. 5 / Tables 3-4 scaled: causal character-level language models on Shakespeare's plays (docs/mssa.md,
# "Language modelling, scaled").
LANGUAGE = MSSA["language"]
LANGUAGE_RUN = "<results>/mssa/language/{language_model}/seed{training_seed}"


wildcard_constraints:
    language_model="|".join(LANGUAGE["models"]),


job_rule(
    "prepare_mssa_language_corpus",
    "Fig. 5 scaled: Shakespeare's plays cleaned (icdenoise.maths.corpora), each with its split (held-out plays or training).",
    "scripts/prepare_mssa_language_corpus.py",
    "<results>/mssa/language/corpus.parquet",
    params=dict(corpus=canonical({key: LANGUAGE[key] for key in ("lowercase", "validation_plays")})),
    cache=True,
)

job_rule(
    "train_mssa_language",
    "Fig. 5 scaled: one causal character-level model (AoT-MSSA-L, AoT-MHSA-L or the transformer) from one seed, AdamW, its "
    "training and validation losses.",
    "scripts/train_mssa_language.py",
    dict(curve=f"{LANGUAGE_RUN}/curve.parquet", final=f"{LANGUAGE_RUN}/final.parquet"),
    input=dict(corpus=rules.prepare_mssa_language_corpus.output[0]),
    params=dict(block=canonical(LANGUAGE)),
    cache=True,
)

LANGUAGE_RUNS = dict(language_model=list(LANGUAGE["models"]), training_seed=LANGUAGE["seeds"])
job_rule(
    "summarise_mssa_language",
    "Fig. 5 scaled: every model's and seed's loss curves, final validation losses, and the parameter counts (Table 4).",
    "scripts/summarise_mssa_language.py",
    dict(
        curves="<figures>/mssa/language_curves.parquet",
        final="<figures>/mssa/language_final.parquet",
        parameters="<figures>/mssa/language_parameters.parquet",
    ),
    input=dict(
        curves=expand(rules.train_mssa_language.output.curve, **LANGUAGE_RUNS),
        final=expand(rules.train_mssa_language.output.final, **LANGUAGE_RUNS),
    ),
    local=True,
)

figure_rule(
    "plot_mssa_language",
    STUDY,
    "mssa/language",
    "Fig. 5 (scaled): training and validation loss of the three language models against AdamW steps.",
    f"{DRAWINGS}.language",
    dict(curves=rules.summarise_mssa_language.output.curves, final=rules.summarise_mssa_language.output.final),
    "report/language.rst",
)


ledger_rule(
    "write_mssa_ledger",
    STUDY,
    dict(
        snr=rules.simulate_mssa_snr.output[0],
        departures=rules.sweep_mssa_snr.output.departures,
        regression=rules.summarise_mssa_regression.output.errors,
        language=rules.summarise_mssa_language.output.final,
        language_curves=rules.summarise_mssa_language.output.curves,
    ),
    dict(table="<figures>/mssa/claims.parquet", text="<figures>/mssa/claims.md"),
    "report/claims.rst",
    appendix=dict(scale=REGRESSION["scale"]),
)
