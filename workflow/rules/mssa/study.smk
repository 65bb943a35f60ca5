# Attention-only transformers via unrolled subspace denoising (Wang et al., ICML 2025): Fig. 4 (SNR per
# layer), where Theorem 3.1 holds, Fig. 6 / Table 5 in-context regression, leaderboard rows and the claims
# ledger. Config block `mssa`; code icdenoise.studies.mssa; protocol and choices in docs/mssa.md.

MSSA = config["mssa"]
MSSA_REGRESSION = MSSA["regression"]
MSSA_FIGURES = ["snr", "sweep", "regression", "training"]
LEADERBOARD_STUDY_SCORES.append(f"results/mssa/leaderboard_scores/{MSSA['leaderboard']['case']}.parquet")


RULE_DEVICES["mssa_train_regression"] = MSSA_REGRESSION["device"]


wildcard_constraints:
    regression_task="|".join(MSSA_REGRESSION["tasks"]),
    architecture="|".join(MSSA_REGRESSION["models"]),
    training_seed=r"\d+",


rule mssa_snr:
    """Fig. 4: SNR (eq. 6) per layer of unrolled MSSA with each draw's own bases, for every δ and φ."""
    input:
        code=code("mssa/mssa_snr.py"),
    output:
        "figures/mssa/snr.parquet",
    params:
        block=canonical(MSSA["snr"]),
    log:
        "logs/mssa/snr.log",
    benchmark:
        "benchmarks/mssa_snr.tsv"
    resources:
        **job_resources("mssa/mssa_snr.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/mssa/mssa_snr.py"


rule mssa_sweep:
    """Where Theorem 3.1 holds: η, p and δ one at a time, the per-layer SNR ratio and the first departing layer."""
    input:
        code=code("mssa/mssa_sweep.py"),
    output:
        layers="results/mssa/sweep.parquet",
        departures="results/mssa/departures.parquet",
    params:
        base=canonical(MSSA["snr"]),
        sweep=canonical(MSSA["sweep"]),
    log:
        "logs/mssa/sweep.log",
    benchmark:
        "benchmarks/mssa_sweep.tsv"
    resources:
        **job_resources("mssa/mssa_sweep.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/mssa/mssa_sweep.py"


rule mssa_train_regression:
    """Fig. 6: one in-context model trained on one regression task from one seed, scored on the fresh test prompts."""
    input:
        code=code("mssa/mssa_train_regression.py"),
    output:
        errors="results/mssa/regression/{regression_task}/{architecture}/seed{training_seed}/errors.parquet",
        curve="results/mssa/regression/{regression_task}/{architecture}/seed{training_seed}/curve.parquet",
    params:
        block=canonical(MSSA_REGRESSION),
        layers=lambda wildcards: MSSA_REGRESSION["models"][wildcards.architecture]["layers"],
    log:
        "logs/mssa/train_regression/{regression_task}_{architecture}_seed{training_seed}.log",
    benchmark:
        "benchmarks/mssa_train_regression/{regression_task}_{architecture}_seed{training_seed}.tsv"
    priority: longest_first("mssa/mssa_train_regression.py")
    resources:
        **job_resources("mssa/mssa_train_regression.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/mssa/mssa_train_regression.py"


rule mssa_regression_baselines:
    """Fig. 6's baselines on the same test prompts: least squares, ridge and Lasso at every number of examples."""
    input:
        code=code("mssa/mssa_regression_baselines.py"),
    output:
        "results/mssa/regression/{regression_task}/baselines.parquet",
    params:
        block=canonical(MSSA_REGRESSION),
    log:
        "logs/mssa/regression_baselines_{regression_task}.log",
    benchmark:
        "benchmarks/mssa_regression_baselines/{regression_task}.tsv"
    resources:
        **job_resources("mssa/mssa_regression_baselines.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/mssa/mssa_regression_baselines.py"


rule mssa_summarise_regression:
    """Fig. 6's tables: every model's and baseline's test error by number of examples, and the training curves."""
    input:
        errors=expand("results/mssa/regression/{regression_task}/{architecture}/seed{training_seed}/errors.parquet",
                      regression_task=MSSA_REGRESSION["tasks"], architecture=list(MSSA_REGRESSION["models"]),
                      training_seed=MSSA_REGRESSION["seeds"]),
        baselines=expand("results/mssa/regression/{regression_task}/baselines.parquet", regression_task=MSSA_REGRESSION["tasks"]),
        curves=expand("results/mssa/regression/{regression_task}/{architecture}/seed{training_seed}/curve.parquet",
                      regression_task=MSSA_REGRESSION["tasks"], architecture=list(MSSA_REGRESSION["models"]),
                      training_seed=MSSA_REGRESSION["seeds"]),
        code=code("mssa/mssa_summarise_regression.py"),
    output:
        errors="figures/mssa/regression.parquet",
        curves="results/mssa/training.parquet",
    log:
        "logs/mssa/summarise_regression.log",
    benchmark:
        "benchmarks/mssa_summarise_regression.tsv"
    resources:
        **job_resources("mssa/mssa_summarise_regression.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/mssa/mssa_summarise_regression.py"


rule mssa_leaderboard_scores:
    """Unrolled MSSA with the prompts' own bases (both φ) on the case's fresh evaluation prompts (the leaderboard's)."""
    input:
        code=code("mssa/mssa_leaderboard_scores.py"),
    output:
        "results/mssa/leaderboard_scores/{case}.parquet",
    params:
        case=get_case_params,
        length=lambda wildcards: context_length(wildcards.case),
        settings=canonical(MSSA["leaderboard"]),
        evaluation=canonical(config["evaluation"]),
    log:
        "logs/mssa/leaderboard_scores_{case}.log",
    benchmark:
        "benchmarks/mssa_leaderboard_scores/{case}.tsv"
    priority: longest_first("mssa/mssa_leaderboard_scores.py")
    resources:
        **job_resources("mssa/mssa_leaderboard_scores.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/mssa/mssa_leaderboard_scores.py"


rule mssa_plot:
    """One figure of the study, from its Parquet tables only."""
    input:
        tables=lambda wildcards: MSSA_PLOT_INPUTS[wildcards.figure],
        code=code("mssa/mssa_plot.py"),
    output:
        report("figures/mssa/{figure}.pdf", caption="../../report/mssa/figure.rst", category="MSSA"),
    wildcard_constraints:
        figure="|".join(MSSA_FIGURES),
    log:
        "logs/mssa/plot_{figure}.log",
    benchmark:
        "benchmarks/mssa_plot/{figure}.tsv"
    resources:
        **job_resources("mssa/mssa_plot.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/mssa/mssa_plot.py"


MSSA_PLOT_INPUTS = {
    "snr": rules.mssa_snr.output,
    "sweep": rules.mssa_sweep.output,
    "regression": [rules.mssa_summarise_regression.output.errors],
    "training": [rules.mssa_summarise_regression.output.curves],
}


rule mssa_claims:
    """The paper's claims ledger: every configured claim, our value, pass or fail, and the results not attempted."""
    input:
        snr=rules.mssa_snr.output[0],
        departures=rules.mssa_sweep.output.departures,
        regression=rules.mssa_summarise_regression.output.errors,
        code=code("mssa/mssa_claims.py"),
    output:
        table="figures/mssa/claims.parquet",
        text=report("figures/mssa/claims.md", caption="../../report/mssa/claims.rst", category="MSSA"),
    params:
        claims=canonical(MSSA["claims"]),
        scale=MSSA_REGRESSION["scale"],
        config_sources=CONFIG_SOURCES,
    log:
        "logs/mssa/claims.log",
    benchmark:
        "benchmarks/mssa_claims.tsv"
    resources:
        **job_resources("mssa/mssa_claims.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/mssa/mssa_claims.py"


rule mssa:
    """Target: every figure of the mssa study, its SNR and Fig. 6 tables and its claims ledger."""
    input:
        expand("figures/mssa/{figure}.pdf", figure=MSSA_FIGURES),
        rules.mssa_claims.output,
