# The example study (tests/example_study): scalar shrinkage of the noisy query. One compute rule, one
# figure, one claim and a leaderboard row, each defined with the shared helpers (workflow/rules/helpers.smk).

SCALED_QUERY = config["scaled_query"]

job_rule(
    "evaluate_scaled_query_grid",
    "MSE/n of x̂ = c·x̃ for every configured scale c, on the case's fresh evaluation prompts.",
    "scripts/evaluate_scaled_query_grid.py",
    "<results>/scaled_query/scales.parquet",
    params=dict(
        case_name=SCALED_QUERY["case"],
        case=canonical(config["cases"][SCALED_QUERY["case"]]),
        scales=SCALED_QUERY["scales"],
        evaluation=canonical(config["evaluation"]),
    ),
)

figure_rule(
    "plot_scaled_query_mse_by_scale",
    "scaled_query",
    "scaled_query/mse_by_scale",
    "MSE/n against the scale c, with the closed form and c*.",
    "scaled_query_study.plots.mse_by_scale",
    dict(scales=rules.evaluate_scaled_query_grid.output[0]),
    "report/mse_by_scale.rst",
)

ledger_rule(
    "write_scaled_query_ledger",
    "scaled_query",
    dict(scales=rules.evaluate_scaled_query_grid.output[0]),
    dict(table="<figures>/scaled_query/claims.parquet", text="<figures>/scaled_query/claims.md"),
    "report/claims.rst",
)

score_rule(
    "score_scaled_query_denoisers",
    "scaled_query",
    SCALED_QUERY["case"],
    "scaled_query_study.shrinkage:leaderboard_denoisers",
    {},
)
