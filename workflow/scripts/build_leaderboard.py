"""Rule build_leaderboard: the common leaderboard as Parquet and Markdown, and the Markdown as an HTML page
for the report (icdenoise.records.pages)."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

import pandas as pd

from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import read_frames, write_job_parquet, write_text
from icdenoise.records.leaderboard import leaderboard_table, markdown
from icdenoise.records.pages import markdown_page

log = start_job(snakemake)
closed_forms = read_frames(snakemake.input.bayes, finite=["mse", "sem"])
trained = read_frames(snakemake.input.trained, finite=["mse", "sem"]) if snakemake.input.trained else pd.DataFrame()
if snakemake.input.study_scores:  # a study's rows: closed forms without a seed column, trained ensembles with one
    study = read_frames(snakemake.input.study_scores, finite=["mse", "sem"])
    has_seed = study["seed"].notna() if "seed" in study else pd.Series(False, index=study.index)
    closed_forms = pd.concat([closed_forms, study[~has_seed].drop(columns="seed", errors="ignore")], ignore_index=True)
    trained = pd.concat([trained, study[has_seed]], ignore_index=True)
cases = {case: snakemake.params.cases[case] for case in snakemake.params.order}
table = leaderboard_table(closed_forms, trained, cases)
write_job_parquet(table, snakemake.output.table, snakemake)
text = markdown(table, snakemake.params.config_sources)
write_text(snakemake.output.text, text)
write_text(snakemake.output.page, markdown_page(text, "Leaderboard"))
log.info("leaderboard:\n%s", table[["case", "estimator", "mse", "ratio_to_bayes"]].to_string(index=False))
