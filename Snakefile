# Attention as in-context denoising and associative memory, as a DAG of Parquet tables and figures.
# `snakemake --cores 2 figures/fig3.pdf` builds one figure, `snakemake --cores 2 <study>` a study,
# `snakemake --cores 2 leaderboard` the common leaderboard, and `snakemake --cores 2` (rule all) everything.
# Shared stages first (datasets, training, evaluation, leaderboard), then one folder of rules per study.

from icdenoise.config import load_yaml

load_yaml("config/config.yaml")  # a YAML error names the file and line; Snakemake's own message names neither


configfile: "config/config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/datasets.smk"
include: "workflow/rules/training.smk"
include: "workflow/rules/evaluation.smk"
include: "workflow/rules/leaderboard.smk"
include: "workflow/rules/onelayer/study.smk"
include: "workflow/rules/alltoken/study.smk"
include: "workflow/rules/mssa/study.smk"
include: "workflow/rules/memory/study.smk"


rule all:
    """Every study and the leaderboard."""
    default_target: True
    input:
        rules.onelayer.input,
        rules.alltoken.input,
        rules.mssa.input,
        rules.memory.input,
        rules.leaderboard.input,
