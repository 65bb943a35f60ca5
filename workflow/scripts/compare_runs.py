"""Rule compare_runs: this run's settings, leaderboard and (with comparison.ledgers) ledgers beside other named
runs' (icdenoise.experiments.comparison), as Parquet and Markdown (rule plot_comparison draws the Parquet)."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

import pandas as pd

from icdenoise.experiments.comparison import comparison_table, markdown
from icdenoise.pipeline.config import load_yaml
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet, write_text

log = start_job(snakemake)
leaderboards, ledgers = {}, []
for label, path in zip(snakemake.params.tables, snakemake.input.tables):
    frame = pd.read_parquet(path)
    if label["study"]:
        ledgers.append((label["run"], label["study"], frame))
    else:
        leaderboards[label["run"]] = frame
configs = {snakemake.config["run"]["name"]: snakemake.config}
configs.update({run: load_yaml(path) for run, path in zip(snakemake.params.runs, snakemake.input.configs)})
table = comparison_table(leaderboards, ledgers, configs)
write_job_parquet(table, snakemake.output.table, snakemake)
write_text(snakemake.output.text, markdown(table))
log.info("compared runs %s: %d rows, %d settings differ", ", ".join(leaderboards), len(table),
         table.loc[table["kind"] == "setting", "key"].nunique())
