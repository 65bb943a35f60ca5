rule scan_energy_landscape:
    """Figure 5 tables: the eq. 16 energy on a grid for one circle context, and the eq. 17 descent paths."""
    input:
        code=code("onelayer/scan_energy_landscape.py"),
    output:
        grid="figures/fig5_landscape.parquet",
        points="figures/fig5_points.parquet",
    params:
        fig5=canonical(ONELAYER["fig5"]),
        case=onelayer_case_block("fig5"),
    log:
        "logs/scan_energy_landscape.log",
    benchmark:
        "benchmarks/scan_energy_landscape.tsv"
    resources:
        **job_resources("onelayer/scan_energy_landscape.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/onelayer/scan_energy_landscape.py"


rule scan_loss_landscape:
    """Figure 6 table of one case: MSE/n on a grid of (β, α), with the heuristic, trained and minimum points."""
    input:
        dataset=lambda wildcards: dataset_path(wildcards.case),
        summary=rules.summarise_training_runs.output[0],
        code=code("onelayer/scan_loss_landscape.py"),
    output:
        "results/landscape/{case}.parquet",
    params:
        fig6=canonical(ONELAYER["fig6"]),
        case=get_case_params,
    log:
        "logs/scan_loss_landscape/{case}.log",
    benchmark:
        "benchmarks/scan_loss_landscape/{case}.tsv"
    resources:
        **job_resources("onelayer/scan_loss_landscape.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/onelayer/scan_loss_landscape.py"
