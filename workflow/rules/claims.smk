rule claims:
    """The claims ledger: every configured claim of the paper, our value, pass or fail."""
    input:
        fig3=rules.summarise_fig3.output[0],
        bayes=[bayes_path(case) for case in config["fig3"]["cases"]],
        fig4a=rules.summarise_fig4a.output.sweep,
        fig4a_fit=rules.summarise_fig4a.output.fit,
        fig4b=rules.evaluate_fig4b.output[0],
        fig5_steps=rules.evaluate_fig5_steps.output[0],
        fig6=expand(rules.scan_loss_landscape.output[0], case=config["fig6"]["cases"]),
        fig8=rules.summarise_fig8.output.similarity,
    output:
        table="figures/claims.parquet",
        text=report("figures/claims.md", caption="../report/claims.rst", category="Claims"),
    params:
        claims=canonical(config["claims"]),
    log:
        "logs/claims.log",
    benchmark:
        "benchmarks/claims.tsv"
    conda:
        "../envs/icdenoise.yaml"
    script:
        "../scripts/claims.py"
