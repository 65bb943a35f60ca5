# The common leaderboard: every closed form, every trained model and every study's own denoisers
# (score_rule) on every configured case they apply to. Its input reads the studies' score tables when the DAG is
# built, so it may be included before or after the studies' rules.

LEADERBOARD_PAGE = report(
    "<figures>/leaderboard.html",
    caption=str(WORKFLOW / "report" / "leaderboard.rst"),
    category="Leaderboard",
    labels={"study": "all", "item": "leaderboard"},
)
job_rule(
    "build_leaderboard",
    "Every denoiser on every configured case it applies to, on the same fresh prompts per case (Parquet, "
    "Markdown, and the Markdown as an HTML page for the report).",
    "../scripts/build_leaderboard.py",
    dict(table="<figures>/leaderboard.parquet", text="<figures>/leaderboard.md", page=LEADERBOARD_PAGE),
    input=lambda wildcards: dict(
        bayes=[bayes_path(case) for case in CASES],
        trained=[trained_scores_path(case) for case in CASES if models_trained_at(case, context_length(case))],
        study_scores=SCORE_TABLES.read(),  # when the DAG is built: every study's, wherever its rules are included
    ),
    params=dict(cases=canonical(config["cases"]), order=CASES, config_sources=CONFIG_SOURCES),
    local=True,
)
REPORTED_TABLES.add("<figures>/leaderboard.parquet")


rule leaderboard:
    """Target: figures/leaderboard.{md,html,parquet}."""
    input:
        reported_targets(rules.build_leaderboard.output),
