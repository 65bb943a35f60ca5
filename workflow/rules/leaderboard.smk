LEADERBOARD_TRAINED = [case for case in CASES if models_trained_at(case, context_length(case))]


rule build_leaderboard:
    """Every denoiser on every configured case it applies to, on the same fresh prompts per case."""
    input:
        bayes=[bayes_path(case) for case in CASES],
        trained=[trained_scores_path(case) for case in LEADERBOARD_TRAINED],
        study_scores=lambda wildcards: LEADERBOARD_STUDY_SCORES,
        code=code("build_leaderboard.py"),
    output:
        table="figures/leaderboard.parquet",
        text=report("figures/leaderboard.md", caption="../report/leaderboard.rst", category="Leaderboard"),
    params:
        cases=canonical(config["cases"]),
        order=CASES,
        config_sources=CONFIG_SOURCES,
    log:
        "logs/build_leaderboard.log",
    benchmark:
        "benchmarks/build_leaderboard.tsv"
    resources:
        **job_resources("build_leaderboard.py"),
    conda:
        "../envs/icdenoise.yaml"
    script:
        "../scripts/build_leaderboard.py"


rule leaderboard:
    """Target: figures/leaderboard.{md,parquet}."""
    input:
        rules.build_leaderboard.output,
