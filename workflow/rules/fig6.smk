rule scan_loss_landscape:
    """Figure 6 table of one case: MSE/n on a grid of (β, α), with the heuristic, trained and minimum points."""
    input:
        dataset=lambda wildcards: dataset_path(wildcards.case),
        summary=rules.summarise_fig3.output[0],
    output:
        "results/landscape/{case}.parquet",
    params:
        fig6=canonical(config["fig6"]),
        task=get_task_params,
    log:
        "logs/scan_loss_landscape/{case}.log",
    benchmark:
        "benchmarks/scan_loss_landscape/{case}.tsv"
    conda:
        "../envs/icdenoise.yaml"
    script:
        "../scripts/scan_loss_landscape.py"


rule plot_fig6:
    """Figure 6: the (β, α) loss landscapes with their marked points."""
    input:
        expand(rules.scan_loss_landscape.output[0], case=config["fig6"]["cases"]),
    output:
        report("figures/fig6.pdf", caption="../report/fig6.rst", category="Figure 6"),
    params:
        fig6=canonical(config["fig6"]),
    log:
        "logs/plot_fig6.log",
    benchmark:
        "benchmarks/plot_fig6.tsv"
    conda:
        "../envs/icdenoise.yaml"
    script:
        "../scripts/plot_fig6.py"
