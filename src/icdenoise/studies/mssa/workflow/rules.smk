# Attention-only transformers via unrolled subspace denoising (Wang et al., ICML 2025): Fig. 4 (SNR per
# layer), where Theorem 3.1 holds, Fig. 6 / Table 5 in-context regression, leaderboard rows and the claims
# ledger. Config block `mssa`; code icdenoise.studies.mssa; protocol and choices in docs/mssa.md.

from icdenoise.studies.mssa.learning_rates import errors_path, grid_points

MSSA = config["mssa"]
STUDY = "mssa"
DRAWINGS = "icdenoise.studies.mssa.plots"
REGRESSION = MSSA["regression"]


wildcard_constraints:
    regression_task="|".join(REGRESSION["tasks"]),
    architecture="|".join(REGRESSION["models"]),
    training_seed=r"\d+",
    learning_rate=r"[0-9.e+-]+",
    clip=r"[0-9.e+-]+",


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
    "mssa/snr",
    "Fig. 4: SNR per layer of unrolled MSSA with known bases.",
    named_tables(rules.simulate_mssa_snr.output),
)
figure_rule(
    "plot_mssa_sweep",
    "mssa/sweep",
    "Where Theorem 3.1 holds: the per-layer SNR ratio and the attention leakage, sweeping η, p and δ.",
    dict(sweep=rules.sweep_mssa_snr.output.layers, departures=rules.sweep_mssa_snr.output.departures),
)
figure_rule(
    "plot_mssa_softmax_sweep",
    "mssa/softmax_sweep",
    "Plain softmax φ: the SNR gain per layer and how long it stays above SNR₀, sweeping η, p and N.",
    named_tables(rules.sweep_mssa_softmax.output),
)
figure_rule(
    "plot_mssa_regression",
    "mssa/regression",
    "Fig. 6 (scaled): in-context linear and sparse regression.",
    dict(regression=rules.summarise_mssa_regression.output.errors),
)
figure_rule(
    "plot_mssa_training",
    "mssa/training",
    "The in-context models' training curves.",
    dict(training=rules.summarise_mssa_regression.output.curves),
)


# The paper's learning-rate grid for Fig. 6 (App. C.2), `mssa.lr_grid`: not part of the `mssa` target; built by the
# target rule mssa_lr_grid. The point at the regression block's own learning rate and clipping reads
# train_mssa_regression's tables; a diverged point is a row of the grid's table (icdenoise.studies.mssa.learning_rates).
LR_GRID = MSSA.get("lr_grid", {"learning_rates": [], "clips": []})
GRID_RUN = "<results>/mssa/lr_grid/{regression_task}/{architecture}/lr{learning_rate}_clip{clip}/seed{training_seed}"
job_rule(
    "train_mssa_regression_grid_point",
    "Fig. 6's learning-rate grid (App. C.2): one in-context model trained at one learning rate and clipping norm.",
    "scripts/train_mssa_regression.py",
    dict(errors=f"{GRID_RUN}/errors.parquet", curve=f"{GRID_RUN}/curve.parquet"),
    params=dict(
        block=lambda wildcards: canonical(
            {**REGRESSION, "learning_rate": float(wildcards.learning_rate), "clip": float(wildcards.clip)}
        ),
        layers=lambda wildcards: REGRESSION["models"][wildcards.architecture]["layers"],
        on_divergence="record",
    ),
    cache=True,
)


LR_GRID_POINTS = grid_points(REGRESSION, LR_GRID)
LR_GRID_ERRORS = [
    errors_path(point, rules.train_mssa_regression.output.errors, rules.train_mssa_regression_grid_point.output.errors)
    for point in LR_GRID_POINTS
]
job_rule(
    "summarise_mssa_lr_grid",
    "Fig. 6's learning-rate grid: per point, the normalized test error at the most examples, or where it diverged.",
    "scripts/summarise_mssa_lr_grid.py",
    "<results>/mssa/lr_grid.parquet",
    input=dict(errors=LR_GRID_ERRORS),
    params=dict(points=LR_GRID_POINTS),
    local=True,
)

job_rule(
    "plot_mssa_lr_grid",
    "Fig. 6's learning-rate grid: the test error at the most examples against the learning rate.",
    WORKFLOW / "scripts" / "plot_figure.py",
    figure_output(
        "<figures>/mssa/lr_grid.pdf",
        str(here("report/lr_grid.rst")),
        STUDIES[STUDY].title,
        report_labels(STUDY, "mssa/lr_grid"),
    ),
    input=dict(lr_grid=rules.summarise_mssa_lr_grid.output[0]),
    params=dict(
        drawing=f"{DRAWINGS}.lr_grid",
        settings={},
        footer=run_footer(["mssa.lr_grid", "mssa.regression"]),
        differences=run_differences(["mssa.lr_grid", "mssa.regression"]),
    ),
    local=True,
    modules=[f"{DRAWINGS}.lr_grid"],
)


rule mssa_lr_grid:
    """Target: Fig. 6's learning-rate grid (mssa.lr_grid), its table and figure; config/mssa_lr_grid.yaml runs it at the
    paper's scale."""
    input:
        reported_targets(["<results>/mssa/lr_grid.parquet", "<figures>/mssa/lr_grid.pdf", "<figures>/mssa/lr_grid.png"]),


# Sec. 4.2.1 / Fig. 5 / Tables 3-4 scaled: causal character-level language models on Shakespeare's plays (docs/mssa_vision_language.md,
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
    "mssa/language",
    "Fig. 5 (scaled): training and validation loss of the three language models against AdamW steps.",
    dict(curves=rules.summarise_mssa_language.output.curves, final=rules.summarise_mssa_language.output.final),
)


# Sec. 4.1, Tables 1–2 and Fig. 7 (App. C.3), scaled to scikit-learn's handwritten digits (docs/mssa_vision_language.md,
# "Vision"): AoT-MSSA-V, AoT-MHSA-V and a ViT per seed, their accuracies, parameter counts and [CLS] attention maps.
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
    "mssa/vision_attention",
    "Fig. 7 (scaled): the class token's attention over the patches, per head, in AoT-MSSA-V's penultimate layer.",
    dict(attention=rules.summarise_mssa_vision.output.attention, digits=rules.split_mssa_vision_digits.output[0]),
    settings=dict(model="mssa", seed=VISION["seeds"][0]),
)
figure_rule(
    "plot_mssa_vision_accuracy",
    "mssa/vision_accuracy",
    "Tables 1–2 (scaled): test accuracy per model and seed against parameters, and the training curves.",
    dict(accuracy=rules.summarise_mssa_vision.output.accuracy, curves=rules.summarise_mssa_vision.output.curves),
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
        vision=rules.summarise_mssa_vision.output.accuracy,
        vision_attention=rules.summarise_mssa_vision.output.attention,
    ),
    dict(table="<figures>/mssa/claims.parquet", text="<figures>/mssa/claims.md"),
    "report/claims.rst",
    appendix=dict(scale=REGRESSION["scale"]),
)
