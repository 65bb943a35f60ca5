"""Rule build_leaderboard: the common leaderboard as Parquet and Markdown."""

import pandas as pd

from icdenoise.artifacts import read_frames, write_job_parquet, write_text
from icdenoise.joblog import configure_job_logging
from icdenoise.leaderboard import leaderboard_table, markdown

log = configure_job_logging(snakemake.log[0], "build_leaderboard")
trained = read_frames(snakemake.input.trained, finite=["mse", "sem"]) if snakemake.input.trained else pd.DataFrame()
cases = {case: snakemake.params.cases[case] for case in snakemake.params.order}
table = leaderboard_table(read_frames(snakemake.input.bayes, finite=["mse", "sem"]), trained, cases)
write_job_parquet(table, snakemake.output.table, snakemake)
write_text(snakemake.output.text, markdown(table, snakemake.params.config_sources))
log.info("leaderboard:\n%s", table[["case", "estimator", "mse", "ratio_to_bayes"]].to_string(index=False))
