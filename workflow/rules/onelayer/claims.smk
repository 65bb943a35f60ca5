rule onelayer_claims:
    """The claims ledger of the paper: every configured claim, our value, pass or fail."""
    input:
        fig3=rules.summarise_training_runs.output[0],
        bayes=[bayes_path(case) for case in ONELAYER["fig3"]["cases"]],
        fig4a=rules.summarise_context_sweep.output.sweep,
        fig4a_fit=rules.summarise_context_sweep.output.fit,
        fig4b=rules.evaluate_subspace_shift.output[0],
        fig5_steps=rules.evaluate_descent_steps.output[0],
        fig6=expand(rules.scan_loss_landscape.output[0], case=ONELAYER["fig6"]["cases"]),
        fig8=rules.compare_learned_structure.output.similarity,
        code=code("onelayer/claims.py"),
    output:
        table="figures/claims.parquet",
        text=report("figures/claims.md", caption="../../report/onelayer/claims.rst", category="Claims"),
    params:
        claims=canonical(ONELAYER["claims"]),
        config_sources=CONFIG_SOURCES,
    log:
        "logs/onelayer_claims.log",
    benchmark:
        "benchmarks/onelayer_claims.tsv"
    resources:
        **job_resources("onelayer/claims.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/onelayer/claims.py"
