# Attention as in-context denoising and associative memory, as a DAG of Parquet tables and figures.
# `snakemake --cores 2 figures/fig3.pdf` builds one figure, `snakemake --cores 2 <study>` a study,
# `snakemake --cores 2 leaderboard` the common leaderboard, and `snakemake --cores 2` (rule all) everything.
# Shared stages first, then the rules of every study the config's `studies` block names, then the
# leaderboard and the targets.

import gc

# Snakemake's modules, imported by now, and the workflow read below are objects that live as long as the process:
# frozen here and at the end of this file, no garbage collection scans them again.
gc.freeze()

from icdenoise.pipeline.config import config_errors_end_the_run, load_yaml, merge_base_config

# A YAML error names the file and line (Snakemake's own message names neither); the base config also names the
# run that writes at the top of the working directory (icdenoise.pipeline.named_runs). A config error is shown
# as its message alone, without a traceback.
with config_errors_end_the_run():
    BASE_CONFIG = load_yaml("config/config.yaml")
# Snakemake's `configfile: "config/config.yaml"`, from the settings read above (merge_base_config)
merge_base_config(workflow, "config/config.yaml", BASE_CONFIG)


include: "workflow/rules/common.smk"
include: "workflow/rules/helpers.smk"
include: "workflow/rules/datasets.smk"
include: "workflow/rules/training.smk"
include: "workflow/rules/evaluation.smk"


for study in STUDIES.values():

    include: study.rules


include: "workflow/rules/leaderboard.smk"
include: "workflow/rules/sweeps.smk"
include: "workflow/rules/comparison.smk"
include: "workflow/rules/targets.smk"


rule all:
    """Every study and the leaderboard."""
    default_target: True
    input:
        *(getattr(rules, study).input for study in STUDIES),
        rules.leaderboard.input,


gc.freeze()  # every object made while reading the workflow (above) is left out of later collections
