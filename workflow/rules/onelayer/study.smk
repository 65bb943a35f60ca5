# The core paper as a study: Smart, Bietti & Sengupta (ICML 2025), Figures 1-8 and its claims
# ledger. Its config block is `onelayer`; its code is icdenoise.studies.onelayer.


include: "common.smk"
include: "evaluation.smk"
include: "scans.smk"
include: "figures.smk"
include: "claims.smk"


rule onelayer:
    """Target: every figure of the paper and its claims ledger."""
    input:
        expand("figures/{figure}.pdf", figure=["fig1", "fig2", "fig3", "fig4a", "fig4b", "fig5", "fig6", "fig7", "fig8"]),
        rules.onelayer_claims.output,
