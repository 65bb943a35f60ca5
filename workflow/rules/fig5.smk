rule compute_fig5:
    """Figure 5 tables: the eq. 16 energy on a grid, one context, and the eq. 17 descent paths."""
    output:
        grid="figures/fig5_landscape.parquet",
        points="figures/fig5_points.parquet",
    params:
        fig5=canonical(config["fig5"]),
        task=canonical(config["cases"][config["fig5"]["case"]]),
    log:
        "logs/compute_fig5.log",
    benchmark:
        "benchmarks/compute_fig5.tsv"
    conda:
        "../envs/icdenoise.yaml"
    script:
        "../scripts/compute_fig5.py"


rule evaluate_fig5_steps:
    """Figure 5 companion: MSE/n after k steps of eq. 17 over many fresh prompts (Sec. 4)."""
    output:
        "figures/fig5_steps.parquet",
    params:
        fig5=canonical(config["fig5"]),
        task=canonical(config["cases"][config["fig5"]["case"]]),
    log:
        "logs/evaluate_fig5_steps.log",
    benchmark:
        "benchmarks/evaluate_fig5_steps.tsv"
    conda:
        "../envs/icdenoise.yaml"
    script:
        "../scripts/evaluate_fig5_steps.py"


rule plot_fig5:
    """Figure 5: one step against iterated descent on the energy landscape, and MSE against k."""
    input:
        grid=rules.compute_fig5.output.grid,
        points=rules.compute_fig5.output.points,
        steps=rules.evaluate_fig5_steps.output[0],
    output:
        report("figures/fig5.pdf", caption="../report/fig5.rst", category="Figure 5"),
    params:
        fig5=canonical(config["fig5"]),
        task=canonical(config["cases"][config["fig5"]["case"]]),
    log:
        "logs/plot_fig5.log",
    benchmark:
        "benchmarks/plot_fig5.tsv"
    conda:
        "../envs/icdenoise.yaml"
    script:
        "../scripts/plot_fig5.py"
