# In-context denoising with one-layer attention (Smart, Bietti & Sengupta, ICML 2025) as a DAG.
# Figures are targets: `snakemake --cores 2 figures/fig3.pdf`. See README.md for the map.

configfile: "config/config.yaml"


include: "workflow/rules/common.smk"


rule all:
    default_target: True
    input:
        "figures/fig3.pdf",
        "figures/fig3.parquet",


include: "workflow/rules/datasets.smk"
include: "workflow/rules/bayes.smk"
include: "workflow/rules/training.smk"
include: "workflow/rules/figures.smk"
