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


# Sec. 4.1, Tables 1–2 and Fig. 7 (App. C.3), scaled to scikit-learn's handwritten digits (docs/mssa.md, "Vision:
# digits"): AoT-MSSA-V, AoT-MHSA-V and a ViT per seed, their accuracies, parameter counts and [CLS] attention maps.
VISION = MSSA["vision"]


wildcard_constraints:
    vision_model="|".join(VISION["models"]),


job_rule(
    "split_mssa_vision_digits",
    "The digits scaled to [0, 1], with the config's fixed, seeded, stratified train/test split.",
    "scripts/split_mssa_vision_digits.py",
    "<results>/mssa/vision/digits.parquet",
    params=dict(block=canonical({key: VISION[key] for key in ("test_fraction", "split_seed")})),
    cache=True,
)

VISION_RUN = "<results>/mssa/vision/{vision_model}/seed{training_seed}"
job_rule(
    "train_mssa_vision",
    "Tables 1–2 (scaled): one digit classifier trained from one seed; its curve, test accuracy and parameter count, "
    "and Fig. 7's class-token attention maps.",
    "scripts/train_mssa_vision.py",
    dict(
        accuracy=f"{VISION_RUN}/accuracy.parquet",
        curve=f"{VISION_RUN}/curve.parquet",
        attention=f"{VISION_RUN}/attention.parquet",
    ),
    input=dict(split=rules.split_mssa_vision_digits.output[0]),
    params=dict(
        block=canonical(VISION),
        layers=lambda wildcards: VISION["models"][wildcards.vision_model]["layers"],
    ),
    cache=True,
)

VISION_RUNS = dict(vision_model=list(VISION["models"]), training_seed=VISION["seeds"])
job_rule(
    "summarise_mssa_vision",
    "The vision tables: test accuracy and parameters per model and seed, the training curves and the attention maps.",
    "scripts/summarise_mssa_vision.py",
    dict(
        accuracy="<figures>/mssa/vision.parquet",
        curves="<results>/mssa/vision_training.parquet",
        attention="<figures>/mssa/vision_attention.parquet",
    ),
    input=dict(
        accuracy=expand(rules.train_mssa_vision.output.accuracy, **VISION_RUNS),
        curves=expand(rules.train_mssa_vision.output.curve, **VISION_RUNS),
        attention=expand(rules.train_mssa_vision.output.attention, **VISION_RUNS),
    ),
    local=True,
)

figure_rule(
    "plot_mssa_vision_attention",
    STUDY,
    "mssa/vision_attention",
    "Fig. 7 (scaled): the class token's attention over the patches, per head, in AoT-MSSA-V's penultimate layer.",
    f"{DRAWINGS}.vision_attention",
    dict(attention=rules.summarise_mssa_vision.output.attention, digits=rules.split_mssa_vision_digits.output[0]),
    "report/vision_attention.rst",
    settings=dict(model="mssa", seed=VISION["seeds"][0]),
)
figure_rule(
    "plot_mssa_vision_accuracy",
    STUDY,
    "mssa/vision_accuracy",
    "Tables 1–2 (scaled): test accuracy per model and seed against parameters, and the training curves.",
    f"{DRAWINGS}.vision_accuracy",
    dict(accuracy=rules.summarise_mssa_vision.output.accuracy, curves=rules.summarise_mssa_vision.output.curves),
    "report/vision_accuracy.rst",
)


ledger_rule(
    "write_mssa_ledger",
    STUDY,
    dict(
        snr=rules.simulate_mssa_snr.output[0],
        departures=rules.sweep_mssa_snr.output.departures,
        regression=rules.summarise_mssa_regression.output.errors,
        vision=rules.summarise_mssa_vision.output.accuracy,
        vision_attention=rules.summarise_mssa_vision.output.attention,
    ),
    dict(table="<figures>/mssa/claims.parquet", text="<figures>/mssa/claims.md"),
    "report/claims.rst",
    appendix=dict(scale=REGRESSION["scale"]),
)
