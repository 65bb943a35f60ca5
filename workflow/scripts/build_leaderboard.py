"""Rule build_leaderboard: the common leaderboard as Parquet and Markdown."""

import pandas as pd

from icdenoise.artifacts import read_frames, write_parquet, write_text
from icdenoise.joblog import configure_job_logging
from icdenoise.leaderboard import leaderboard_table, markdown

log = configure_job_logging(snakemake.log[0], "build_leaderboard")
trained = read_frames(snakemake.input.trained) if snakemake.input.trained else pd.DataFrame()
cases = {case: snakemake.params.cases[case] for case in snakemake.params.order}
table = leaderboard_table(read_frames(snakemake.input.bayes), trained, cases)
write_parquet(table, snakemake.output.table, {"cases": snakemake.params.cases})
write_text(snakemake.output.text, markdown(table))
log.info("leaderboard:\n%s", table[["case", "estimator", "mse", "ratio_to_bayes"]].to_string(index=False))
