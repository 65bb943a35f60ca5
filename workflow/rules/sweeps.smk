# Sweeps declared in config (icdenoise.pipeline.sweeps): every point is a derived case that the shared
# stages sample, train and score as they do a configured case, except a point that is exactly its base case,
# which reads that case's tables (POINTS, SHARED, and the sweep's input functions, are in common.smk). Per sweep: one tidy table and one figure. Targets: sweep_<name> (one sweep) and sweeps
# (all of them); `all` does not build them.

job_rule(
    "summarise_sweep",
    "A sweep's tidy table: per point, model and seed, MSE/n on fresh prompts, its ratio to Bayes, the learned "
    "α, β, γ and the theory's β = 1/σ_z² and γ* = 1/(σ0²+σ_z²) where they apply.",
    "../scripts/summarise_sweep.py",
    "<results>/sweeps/{sweep}.parquet",
    input=sweep_inputs,
    params=dict(points=sweep_point_params),
    local=True,
)

SWEEP_FIGURE = figure_output(
    "<figures>/sweeps/{sweep}.pdf",
    caption=str(WORKFLOW / "report" / "sweep.rst"),
    category="Sweeps",
    labels={"study": "sweeps", "item": "{sweep}"},
)
job_rule(
    "plot_sweep",
    "A sweep's figure: each quantity of its table against the swept value, with seed (or spread-key) error bars.",
    WORKFLOW / "scripts" / "plot_figure.py",
    SWEEP_FIGURE,
    input=dict(sweep="<results>/sweeps/{sweep}.parquet"),
    params=dict(
        drawing="icdenoise.experiments.plots.sweep",
        settings=lambda wildcards: dict(
            name=wildcards.sweep,
            keys=list(SWEEPS[wildcards.sweep]["grid"]),
            spread=SWEEPS[wildcards.sweep].get("spread"),
        ),
        sweep=lambda wildcards: SWEEPS[wildcards.sweep],  # the caption's: a study's own sweep is in no config `sweeps`
        footer=lambda wildcards: run_footer([sweep_key(wildcards.sweep, STUDIES, config)]),
        differences=lambda wildcards: run_differences([sweep_key(wildcards.sweep, STUDIES, config)]),
    ),
    local=True,
    modules=["icdenoise.experiments.plots.sweep"],
)

for sweep in SWEEPS:
    free_rule_name(f"sweep_{sweep}")

    rule:
        name:
            f"sweep_{sweep}"
        input:
            reported_targets(
                [f"<results>/sweeps/{sweep}.parquet", f"<figures>/sweeps/{sweep}.pdf", f"<figures>/sweeps/{sweep}.png"]
            ),

    workflow.get_rule(f"sweep_{sweep}").docstring = f"Target: the table and figure of sweep {sweep}."


rule sweeps:
    """Target: the table and figure of every sweep in the config."""
    input:
        reported_targets([f"<figures>/sweeps/{sweep}.{suffix}" for sweep in SWEEPS for suffix in ("pdf", "png")]),
