rule summarise_fig1:
    """Figures 1(b) and 2 table: one test prompt per n = 3 case with the Bayes and trained estimates."""
    input:
        unpack(get_fig1_inputs),
    output:
        "figures/fig1.parquet",
    params:
        fig1=canonical(config["fig1"]),
        order=list(config["fig1"]["cases"]),  # the order of the inputs and of the panels
        tasks=canonical({case: config["cases"][case] for case in config["fig1"]["cases"]}),
    log:
        "logs/summarise_fig1.log",
    benchmark:
        "benchmarks/summarise_fig1.tsv"
    conda:
        "../envs/icdenoise.yaml"
    script:
        "../scripts/summarise_fig1.py"


rule plot_fig1:
    """Figure 1(b): the three tasks drawn from data in n = 3."""
    input:
        rules.summarise_fig1.output[0],
    output:
        report("figures/fig1.pdf", caption="../report/fig1.rst", category="Figures 1 and 2"),
    params:
        tasks=canonical({case: config["cases"][case]["task"] for case in config["fig1"]["cases"]}),
    log:
        "logs/plot_fig1.log",
    benchmark:
        "benchmarks/plot_fig1.tsv"
    conda:
        "../envs/icdenoise.yaml"
    script:
        "../scripts/plot_fig1.py"


rule plot_fig2:
    """Figure 2: the projection P x̃ against the shrunk Bayes estimate (eq. 3)."""
    input:
        rules.summarise_fig1.output[0],
    output:
        report("figures/fig2.pdf", caption="../report/fig2.rst", category="Figures 1 and 2"),
    params:
        fig2=canonical(config["fig2"]),
        task=canonical(config["cases"][config["fig2"]["case"]]),
    log:
        "logs/plot_fig2.log",
    benchmark:
        "benchmarks/plot_fig2.tsv"
    conda:
        "../envs/icdenoise.yaml"
    script:
        "../scripts/plot_fig2.py"
