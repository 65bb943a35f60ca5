rule summarise_fig4a:
    """Figure 4(a) tables: γ and best test MSE per (L, seed), the baselines per L, the power-law fit."""
    input:
        unpack(get_fig4a_inputs),
    output:
        sweep="figures/fig4a.parquet",
        baselines="figures/fig4a_baselines.parquet",
        fit="figures/fig4a_power_law.parquet",
    params:
        fig4a=canonical(config["fig4a"]),
        task=canonical(config["cases"][config["fig4a"]["case"]]),
    log:
        "logs/summarise_fig4a.log",
    benchmark:
        "benchmarks/summarise_fig4a.tsv"
    conda:
        "../envs/icdenoise.yaml"
    script:
        "../scripts/summarise_fig4a.py"


rule plot_fig4a:
    """Figure 4(a): γ, best test MSE and the excess over Bayes against the training context length."""
    input:
        rules.summarise_fig4a.output,
    output:
        report("figures/fig4a.pdf", caption="../report/fig4a.rst", category="Figure 4"),
    params:
        task=canonical(config["cases"][config["fig4a"]["case"]]),
    log:
        "logs/plot_fig4a.log",
    benchmark:
        "benchmarks/plot_fig4a.tsv"
    conda:
        "../envs/icdenoise.yaml"
    script:
        "../scripts/plot_fig4a.py"


rule evaluate_fig4b:
    """Figure 4(b) table: the model trained at d, L scored on fresh prompts with other d' and L."""
    input:
        training_path(config["fig4b"]["case"], config["fig4b"]["model"], "weights"),
    output:
        "figures/fig4b.parquet",
    params:
        fig4b=canonical(config["fig4b"]),
        task=canonical(config["cases"][config["fig4b"]["case"]]),
    log:
        "logs/evaluate_fig4b.log",
    benchmark:
        "benchmarks/evaluate_fig4b.tsv"
    threads: 1
    conda:
        "../envs/icdenoise.yaml"
    script:
        "../scripts/evaluate_fig4b.py"


rule plot_fig4b:
    """Figure 4(b): y = MSE·n/d' against d', trained and untrained, with the Bayes and zero lines."""
    input:
        rules.evaluate_fig4b.output[0],
    output:
        report("figures/fig4b.pdf", caption="../report/fig4b.rst", category="Figure 4"),
    params:
        task=canonical(config["cases"][config["fig4b"]["case"]]),
    log:
        "logs/plot_fig4b.log",
    benchmark:
        "benchmarks/plot_fig4b.tsv"
    conda:
        "../envs/icdenoise.yaml"
    script:
        "../scripts/plot_fig4b.py"
