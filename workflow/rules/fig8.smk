rule summarise_fig8:
    """Figure 8 tables: A, the optimal structures, learned weights and their cosine similarities."""
    input:
        unpack(get_fig8_inputs),
    output:
        matrices="figures/fig8.parquet",
        similarity="figures/fig8_similarity.parquet",
    params:
        fig8=canonical(config["fig8"]),
        task=canonical(config["cases"][config["fig8"]["case"]]),
    log:
        "logs/summarise_fig8.log",
    benchmark:
        "benchmarks/summarise_fig8.tsv"
    conda:
        "../envs/icdenoise.yaml"
    script:
        "../scripts/summarise_fig8.py"


rule plot_fig8:
    """Figure 8: A, the optimal structures and the learned weights of both models."""
    input:
        matrices=rules.summarise_fig8.output.matrices,
        similarity=rules.summarise_fig8.output.similarity,
    output:
        report("figures/fig8.pdf", caption="../report/fig8.rst", category="Figure 8"),
    params:
        fig8=canonical(config["fig8"]),
        epochs=config["training"]["epochs"][config["fig8"]["case"]],
        L=context_length(config["fig8"]["case"]),
    log:
        "logs/plot_fig8.log",
    benchmark:
        "benchmarks/plot_fig8.tsv"
    conda:
        "../envs/icdenoise.yaml"
    script:
        "../scripts/plot_fig8.py"
