"""The mssa study's benchmarks outside the DAG: timings and prices of its training at the paper's scale, which no rule
reads and no claim decides, each run as `python -m icdenoise.studies.mssa.tools.<name>` from the repository's root."""

from __future__ import annotations

from pathlib import Path

from snakemake.utils import update_config

from icdenoise.pipeline.config import load_yaml

PAPER_SCALE = Path("config") / "mssa_paper_scale.yaml"  # the tools' default configfile, from the repository's root


def regression_block(configfile: str | Path) -> dict:
    """The `mssa.regression` block of config/config.yaml with `configfile` merged over it, as Snakemake merges a
    --configfile (`snakemake.utils.update_config`)."""
    config = load_yaml(Path("config") / "config.yaml")
    update_config(config, load_yaml(configfile))
    return config["mssa"]["regression"]
