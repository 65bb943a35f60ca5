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


rule plot_fig7:
    """Figure 7: linear against softmax attention, from the same training runs as Figure 3."""
    input:
        losses=training_paths("losses", config["fig7"]["cases"], config["fig7"]["models"]),
        weights=training_paths("weights", config["fig7"]["cases"], config["fig7"]["models"]),
        bayes=[bayes_path(case) for case in config["fig7"]["cases"]],
        summary=rules.summarise_fig3.output[0],
    output:
        report("figures/fig7.pdf", caption="../report/fig7.rst", category="Figure 7"),
    params:
        fig7=canonical(config["fig7"]),
    log:
        "logs/plot_fig7.log",
    benchmark:
        "benchmarks/plot_fig7.tsv"
    conda:
        "../envs/icdenoise.yaml"
    script:
        "../scripts/plot_fig7.py"
