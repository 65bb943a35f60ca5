rule summarise_fig3:
    """figures/fig3.parquet: α, β, final losses and baselines per (case, model, seed)."""
    input:
        unpack(get_fig3_inputs),
    output:
        "figures/fig3.parquet",
    params:
        fig3=canonical(config["fig3"]),
    log:
        "logs/summarise_fig3.log",
    benchmark:
        "benchmarks/summarise_fig3.tsv"
    conda:
        "../envs/icdenoise.yaml"
    script:
        "../scripts/summarise_fig3.py"


rule plot_fig3:
    """Figure 3: loss dynamics (a) and learned weights (b), drawn from Parquet only."""
    input:
        unpack(get_fig3_inputs),
        summary=rules.summarise_fig3.output[0],
    output:
        report("figures/fig3.pdf", caption="../report/fig3.rst", category="Figure 3"),
    params:
        fig3=canonical(config["fig3"]),
    log:
        "logs/plot_fig3.log",
    benchmark:
        "benchmarks/plot_fig3.tsv"
    conda:
        "../envs/icdenoise.yaml"
    script:
        "../scripts/plot_fig3.py"
