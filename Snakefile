# In-context denoising with one-layer attention (Smart, Bietti & Sengupta, ICML 2025) as a DAG.
# Figures are targets: `snakemake --cores 2 figures/fig3.pdf`; `snakemake --cores 2 all` builds every
# figure and the claims ledger. See README.md for the map.

configfile: "config/config.yaml"


include: "workflow/rules/common.smk"

FIGURES = ["fig1", "fig2", "fig3", "fig4a", "fig4b", "fig5", "fig6", "fig7", "fig8"]


rule all:
    default_target: True
    input:
        expand("figures/{figure}.pdf", figure=FIGURES),
        "figures/claims.parquet",
        "figures/claims.md",


include: "workflow/rules/datasets.smk"
include: "workflow/rules/bayes.smk"
include: "workflow/rules/training.smk"
include: "workflow/rules/fig1.smk"
include: "workflow/rules/fig3.smk"
include: "workflow/rules/fig4.smk"
include: "workflow/rules/fig5.smk"
include: "workflow/rules/fig6.smk"
include: "workflow/rules/fig8.smk"
include: "workflow/rules/claims.smk"
