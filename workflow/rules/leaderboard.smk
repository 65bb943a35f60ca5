# The common leaderboard: every closed form, every trained model and every study's own denoisers
# (score_rule) on every configured case they apply to. Read after the studies' rules.

LEADERBOARD_TEXT = report(
    "figures/leaderboard.md", caption=str(WORKFLOW / "report" / "leaderboard.rst"), category="Leaderboard"
)
job_rule(
    "build_leaderboard",
    "Every denoiser on every configured case it applies to, on the same fresh prompts per case.",
    "../scripts/build_leaderboard.py",
    dict(table="figures/leaderboard.parquet", text=LEADERBOARD_TEXT),
    input=dict(
        bayes=[bayes_path(case) for case in CASES],
        trained=[trained_scores_path(case) for case in CASES if models_trained_at(case, context_length(case))],
        study_scores=SCORE_TABLES,
    ),
    params=dict(cases=canonical(config["cases"]), order=CASES, config_sources=CONFIG_SOURCES),
    local=True,
)
REPORTED_TABLES.append("figures/leaderboard.parquet")


rule leaderboard:
    """Target: figures/leaderboard.{md,parquet}."""
    input:
        rules.build_leaderboard.output,
