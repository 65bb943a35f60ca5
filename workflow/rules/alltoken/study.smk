# All-token corruption as two-stage empirical Bayes (Smart et al. 2026, via its explainer): its figures,
# a learned depth, leaderboard rows and its claims ledger. Config block `alltoken`; code
# icdenoise.studies.alltoken; theory and choices in docs/alltoken.md.

ALLTOKEN = config["alltoken"]
ALLTOKEN_CASE = ALLTOKEN["mse"]["case"]
ALLTOKEN_FIGURES = ["before_after", "particle_flow", "variance", "gaussian", "mse_by_n", "learned_depth"]
LEADERBOARD_STUDY_SCORES.append(f"results/alltoken/leaderboard_scores/{ALLTOKEN_CASE}.parquet")


wildcard_constraints:
    tokens=r"\d+",


rule alltoken_before_after:
    """The explainer's first figure: x̂* for a query among noisy tokens, at depth 0 and after `depth` layers."""
    input:
        code=code("alltoken/alltoken_before_after.py"),
    output:
        estimates="results/alltoken/before_after/estimates.parquet",
        tokens="results/alltoken/before_after/tokens.parquet",
        energy="results/alltoken/before_after/energy.parquet",
    params:
        block=canonical(ALLTOKEN["before_after"]),
    log:
        "logs/alltoken/before_after.log",
    benchmark:
        "benchmarks/alltoken_before_after.tsv"
    resources:
        **job_resources("alltoken/alltoken_before_after.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/alltoken/alltoken_before_after.py"


rule alltoken_particle_flow:
    """Stage-1 particle positions across depth for each β, with the clusters formed."""
    input:
        code=code("alltoken/alltoken_particle_flow.py"),
    output:
        "results/alltoken/particle_flow.parquet",
    params:
        block=canonical(ALLTOKEN["particle_flow"]),
    log:
        "logs/alltoken/particle_flow.log",
    benchmark:
        "benchmarks/alltoken_particle_flow.tsv"
    resources:
        **job_resources("alltoken/alltoken_particle_flow.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/alltoken/alltoken_particle_flow.py"


rule alltoken_variance:
    """The particles' variance against τ = ℓη/β, with the β → ∞ line and the finite-β ODE."""
    input:
        code=code("alltoken/alltoken_variance.py"),
    output:
        "results/alltoken/variance.parquet",
    params:
        block=canonical(ALLTOKEN["variance"]),
    log:
        "logs/alltoken/variance.log",
    benchmark:
        "benchmarks/alltoken_variance.tsv"
    resources:
        **job_resources("alltoken/alltoken_variance.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/alltoken/alltoken_variance.py"


rule alltoken_gaussian:
    """Covariance eigenvalues of particles from a Gaussian prior against the Γ ODE of Theorem 5.1."""
    input:
        code=code("alltoken/alltoken_gaussian.py"),
    output:
        "results/alltoken/gaussian.parquet",
    params:
        block=canonical(ALLTOKEN["gaussian"]),
    log:
        "logs/alltoken/gaussian.log",
    benchmark:
        "benchmarks/alltoken_gaussian.tsv"
    resources:
        **job_resources("alltoken/alltoken_gaussian.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/alltoken/alltoken_gaussian.py"


rule alltoken_mse:
    """Fig. 4(a) at one N: per context, every estimator's MSE/σ² at every recorded depth."""
    input:
        code=code("alltoken/alltoken_mse.py"),
    output:
        "results/alltoken/mse/N{tokens}.parquet",
    params:
        case=canonical(config["cases"][ALLTOKEN_CASE]),
        block=canonical(ALLTOKEN["mse"]),
        contexts=lambda wildcards: dict(zip(ALLTOKEN["mse"]["n_tokens"], ALLTOKEN["mse"]["contexts"]))[int(wildcards.tokens)],
    log:
        "logs/alltoken/mse_N{tokens}.log",
    benchmark:
        "benchmarks/alltoken_mse/N{tokens}.tsv"
    priority: longest_first("alltoken/alltoken_mse.py")
    resources:
        **job_resources("alltoken/alltoken_mse.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/alltoken/alltoken_mse.py"


rule alltoken_summarise_mse:
    """Fig. 4(a)'s table: mean and SEM over contexts per estimator and N, at the bars' depth and every depth."""
    input:
        per_n=expand("results/alltoken/mse/N{tokens}.parquet", tokens=ALLTOKEN["mse"]["n_tokens"]),
        code=code("alltoken/alltoken_summarise_mse.py"),
    output:
        bars="figures/alltoken/mse_by_n.parquet",
        by_depth="results/alltoken/mse_by_depth.parquet",
    params:
        depth=ALLTOKEN["mse"]["depth"],
    log:
        "logs/alltoken/summarise_mse.log",
    benchmark:
        "benchmarks/alltoken_summarise_mse.tsv"
    resources:
        **job_resources("alltoken/alltoken_summarise_mse.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/alltoken/alltoken_summarise_mse.py"


rule alltoken_learned_depth:
    """The learned-depth network's per-layer β_ℓ, η_ℓ and its test MSE against two-stage and Bayes as N grows."""
    input:
        weights=training_path(ALLTOKEN_CASE, ALLTOKEN["learned"]["model"], "weights"),
        code=code("alltoken/alltoken_learned_depth.py"),
    output:
        parameters="results/alltoken/learned_parameters.parquet",
        table="figures/alltoken/learned_depth.parquet",
    params:
        case=canonical(config["cases"][ALLTOKEN_CASE]),
        mse=canonical(ALLTOKEN["mse"]),
        block=canonical(ALLTOKEN["learned"]),
    log:
        "logs/alltoken/learned_depth.log",
    benchmark:
        "benchmarks/alltoken_learned_depth.tsv"
    resources:
        **job_resources("alltoken/alltoken_learned_depth.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/alltoken/alltoken_learned_depth.py"


rule alltoken_leaderboard_scores:
    """The empirical-Bayes estimators at Fig. 4(a)'s (β, η, L) on the case's fresh evaluation prompts (the leaderboard's)."""
    input:
        code=code("alltoken/alltoken_leaderboard_scores.py"),
    output:
        "results/alltoken/leaderboard_scores/{case}.parquet",
    params:
        case=get_case_params,
        length=lambda wildcards: context_length(wildcards.case),
        mse=canonical(ALLTOKEN["mse"]),
        evaluation=canonical(config["evaluation"]),
    log:
        "logs/alltoken/leaderboard_scores_{case}.log",
    benchmark:
        "benchmarks/alltoken_leaderboard_scores/{case}.tsv"
    priority: longest_first("alltoken/alltoken_leaderboard_scores.py")
    resources:
        **job_resources("alltoken/alltoken_leaderboard_scores.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/alltoken/alltoken_leaderboard_scores.py"


rule alltoken_plot:
    """One figure of the study, from its Parquet tables only."""
    input:
        tables=lambda wildcards: ALLTOKEN_PLOT_INPUTS[wildcards.figure],
        code=code("alltoken/alltoken_plot.py"),
    output:
        report("figures/alltoken/{figure}.pdf", caption="../../report/alltoken/figure.rst", category="All-token corruption"),
    wildcard_constraints:
        figure="|".join(ALLTOKEN_FIGURES),
    log:
        "logs/alltoken/plot_{figure}.log",
    benchmark:
        "benchmarks/alltoken_plot/{figure}.tsv"
    resources:
        **job_resources("alltoken/alltoken_plot.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/alltoken/alltoken_plot.py"


ALLTOKEN_PLOT_INPUTS = {
    "before_after": rules.alltoken_before_after.output,
    "particle_flow": rules.alltoken_particle_flow.output,
    "variance": rules.alltoken_variance.output,
    "gaussian": rules.alltoken_gaussian.output,
    "mse_by_n": rules.alltoken_summarise_mse.output,
    "learned_depth": rules.alltoken_learned_depth.output,
}


rule alltoken_claims:
    """The explainer's claims ledger: every configured claim, our value, pass or fail."""
    input:
        before_after=rules.alltoken_before_after.output.estimates,
        flow=rules.alltoken_particle_flow.output[0],
        variance=rules.alltoken_variance.output[0],
        gaussian=rules.alltoken_gaussian.output[0],
        mse_by_n=rules.alltoken_summarise_mse.output.bars,
        mse_by_depth=rules.alltoken_summarise_mse.output.by_depth,
        code=code("alltoken/alltoken_claims.py"),
    output:
        table="figures/alltoken/claims.parquet",
        text=report("figures/alltoken/claims.md", caption="../../report/alltoken/claims.rst", category="All-token corruption"),
    params:
        claims=canonical(ALLTOKEN["claims"]),
        config_sources=CONFIG_SOURCES,
    log:
        "logs/alltoken/claims.log",
    benchmark:
        "benchmarks/alltoken_claims.tsv"
    resources:
        **job_resources("alltoken/alltoken_claims.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/alltoken/alltoken_claims.py"


rule alltoken:
    """Target: every figure of the all-token study, its Fig. 4(a) table and its claims ledger."""
    input:
        expand("figures/alltoken/{figure}.pdf", figure=ALLTOKEN_FIGURES),
        rules.alltoken_claims.output,
