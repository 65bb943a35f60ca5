# The starter study (icdenoise.scaffold's template): one compute rule, one figure, one claim and
# leaderboard rows on each of its cases, each defined with the shared helpers (workflow/rules/helpers.smk).

STARTER = config["starter"]

job_rule(
    "compute_starter",
    "MSE/n of the noisy query x̂ = x̃ on each of the study's cases, against σ_z².",
    "scripts/compute_starter.py",
    "<results>/starter/noisy_query.parquet",
    params=dict(
        cases={case: canonical(config["cases"][case]) for case in STARTER["cases"]},
        prompts=STARTER["prompts"],
        seed=STARTER["seed"],
    ),
)

figure_rule(
    "plot_starter_noisy_query",
    "starter/noisy_query",
    "MSE/n of the noisy query over σ_z², per case.",
    dict(noisy_query=rules.compute_starter.output[0]),
)

ledger_rule(
    "write_starter_ledger",
    "starter",
    dict(noisy_query=rules.compute_starter.output[0]),
    dict(table="<figures>/starter/claims.parquet", text="<figures>/starter/claims.md"),
    "report/claims.rst",
)

score_rule(
    "score_starter_denoisers",
    "starter",
    STARTER["cases"],
    "starter.noisy_query:leaderboard_denoisers",
    {},
)
