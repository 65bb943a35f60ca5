# All-token corruption as two-stage empirical Bayes (Smart et al. 2026, via its explainer): its figures,
# a learned depth, leaderboard rows and its claims ledger. Config block `alltoken`; code
# icdenoise.studies.alltoken; theory and choices in docs/alltoken.md.

ALLTOKEN = config["alltoken"]
STUDY = "alltoken"
DRAWINGS = "icdenoise.studies.alltoken.plots"  # unused by its figures, which derive theirs; kept: a top-level line is in the claims' wiring digest
ALLTOKEN_CASE = ALLTOKEN["mse"]["case"]


wildcard_constraints:
    tokens=r"\d+",


job_rule(
    "simulate_alltoken_before_after",
    "The explainer's first figure: x̂* for a query among noisy tokens, at depth 0 and after `depth` layers.",
    "scripts/simulate_alltoken_before_after.py",
    dict(
        estimates="<results>/alltoken/before_after/estimates.parquet",
        tokens="<results>/alltoken/before_after/tokens.parquet",
        energy="<results>/alltoken/before_after/energy.parquet",
    ),
    params=dict(block=canonical(ALLTOKEN["before_after"])),
    cache=True,
)

job_rule(
    "simulate_alltoken_particle_flow",
    "Stage-1 particle positions across depth for each β, with the clusters formed.",
    "scripts/simulate_alltoken_particle_flow.py",
    "<results>/alltoken/particle_flow.parquet",
    params=dict(block=canonical(ALLTOKEN["particle_flow"])),
    cache=True,
)

job_rule(
    "simulate_alltoken_flow_replicates",
    "The particle flow again from each replicate seed, the particles at L* only (the cluster claims over seeds).",
    "scripts/simulate_alltoken_flow_replicates.py",
    "<results>/alltoken/flow_replicates.parquet",
    params=dict(block=canonical(ALLTOKEN["particle_flow"])),
    cache=True,
)

job_rule(
    "simulate_alltoken_variance",
    "The particles' variance against τ = ℓη/β, with the β → ∞ line and the finite-β ODE.",
    "scripts/simulate_alltoken_variance.py",
    "<results>/alltoken/variance.parquet",
    params=dict(block=canonical(ALLTOKEN["variance"])),
    cache=True,
)

job_rule(
    "simulate_alltoken_gaussian",
    "Covariance eigenvalues of particles from a Gaussian prior against the Γ ODE of Theorem 5.1, and their distance to "
    "Σ₀ at T_β for several β.",
    "scripts/simulate_alltoken_gaussian.py",
    dict(table="<results>/alltoken/gaussian.parquet", trend="<figures>/alltoken/gaussian_trend.parquet"),
    params=dict(block=canonical(ALLTOKEN["gaussian"])),
    cache=True,
)

job_rule(
    "evaluate_alltoken_mse",
    "Fig. 4(a) at one N: per context, every estimator's MSE/σ² at every recorded depth.",
    "scripts/evaluate_alltoken_mse.py",
    "<results>/alltoken/mse/N{tokens}.parquet",
    params=dict(
        case=canonical(config["cases"][ALLTOKEN_CASE]),
        block=canonical(ALLTOKEN["mse"]),
        contexts=lambda wildcards: dict(zip(ALLTOKEN["mse"]["n_tokens"], ALLTOKEN["mse"]["contexts"]))[
            int(wildcards.tokens)
        ],
    ),
    cache=True,
)

job_rule(
    "summarise_alltoken_mse",
    "Fig. 4(a)'s table: mean and SEM over contexts per estimator and N, at the bars' depth and every depth.",
    "scripts/summarise_alltoken_mse.py",
    dict(bars="<figures>/alltoken/mse_by_n.parquet", by_depth="<results>/alltoken/mse_by_depth.parquet"),
    input=dict(per_n=expand(rules.evaluate_alltoken_mse.output[0], tokens=ALLTOKEN["mse"]["n_tokens"])),
    params=dict(depth=ALLTOKEN["mse"]["depth"]),
    local=True,
)

job_rule(
    "scan_alltoken_cross_bandwidth",
    "Stage 2's bandwidth: the two-stage MSE/σ² against β_c with Stage 1 fixed at the bars' depth (β_c = 1/σ²?).",
    "scripts/scan_alltoken_cross_bandwidth.py",
    "<figures>/alltoken/cross_bandwidth.parquet",
    params=dict(
        case=canonical(config["cases"][ALLTOKEN_CASE]),
        block=canonical(ALLTOKEN["mse"]),
        scan=canonical(ALLTOKEN["cross_bandwidth"]),
    ),
    cache=True,
)

job_rule(
    "evaluate_alltoken_learned_depth",
    "The learned-depth network's per-layer β_ℓ, η_ℓ and its test MSE against two-stage and Bayes as N grows.",
    "scripts/evaluate_alltoken_learned_depth.py",
    dict(parameters="<results>/alltoken/learned_parameters.parquet", table="<figures>/alltoken/learned_depth.parquet"),
    input=dict(weights=training_path(ALLTOKEN_CASE, ALLTOKEN["learned"]["model"], "weights")),
    params=dict(
        case=canonical(config["cases"][ALLTOKEN_CASE]),
        mse=canonical(ALLTOKEN["mse"]),
        block=canonical(ALLTOKEN["learned"]),
    ),
    cache=True,
)

score_rule(
    "score_alltoken_denoisers",
    STUDY,
    ALLTOKEN_CASE,
    "icdenoise.studies.alltoken.empirical_bayes:leaderboard_denoisers",
    {key: ALLTOKEN["mse"][key] for key in ("beta", "eta", "depth")},
)

figure_rule(
    "plot_alltoken_before_after",
    "alltoken/before_after",
    "The explainer's first figure: x̂* and the Stage-2 energy at depths 0 and `depth`.",
    named_tables(rules.simulate_alltoken_before_after.output),
)
figure_rule(
    "plot_alltoken_particle_flow",
    "alltoken/particle_flow",
    "Stage-1 particles across depth for each β.",
    named_tables(rules.simulate_alltoken_particle_flow.output),
)
figure_rule(
    "plot_alltoken_variance",
    "alltoken/variance",
    "The particles' variance against τ = ℓη/β.",
    named_tables(rules.simulate_alltoken_variance.output),
)
figure_rule(
    "plot_alltoken_gaussian",
    "alltoken/gaussian",
    "Covariance eigenvalues against the Γ ODE of Theorem 5.1.",
    dict(gaussian=rules.simulate_alltoken_gaussian.output.table),
)
figure_rule(
    "plot_alltoken_mse_by_n",
    "alltoken/mse_by_n",
    "Fig. 4(a): MSE/σ² of each estimator by N, and against depth.",
    dict(mse_by_n=rules.summarise_alltoken_mse.output.bars, mse_by_depth=rules.summarise_alltoken_mse.output.by_depth),
)
figure_rule(
    "plot_alltoken_learned_depth",
    "alltoken/learned_depth",
    "The learned depth's β_ℓ, η_ℓ and its test MSE by N.",
    dict(
        learned_parameters=rules.evaluate_alltoken_learned_depth.output.parameters,
        learned_depth=rules.evaluate_alltoken_learned_depth.output.table,
    ),
)


ledger_rule(
    "write_alltoken_ledger",
    STUDY,
    dict(
        before_after=rules.simulate_alltoken_before_after.output.estimates,
        flow=rules.simulate_alltoken_particle_flow.output[0],
        flow_replicates=rules.simulate_alltoken_flow_replicates.output[0],
        variance=rules.simulate_alltoken_variance.output[0],
        gaussian=rules.simulate_alltoken_gaussian.output.table,
        gaussian_trend=rules.simulate_alltoken_gaussian.output.trend,
        mse_by_n=rules.summarise_alltoken_mse.output.bars,
        # every estimator's MSE per context: the estimators share their contexts (paired claims)
        mse_per_context=expand(rules.evaluate_alltoken_mse.output[0], tokens=ALLTOKEN["mse"]["n_tokens"]),
        mse_by_depth=rules.summarise_alltoken_mse.output.by_depth,
        cross_bandwidth=rules.scan_alltoken_cross_bandwidth.output[0],
    ),
    dict(table="<figures>/alltoken/claims.parquet", text="<figures>/alltoken/claims.md"),
    "report/claims.rst",
)
