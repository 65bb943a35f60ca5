"""Rule mssa_claims: the paper's claims ledger as Parquet and Markdown, with the results not attempted."""

from icdenoise.warmstart import hand_over

hand_over()

from icdenoise.artifacts import read_frames, write_job_parquet, write_text
from icdenoise.claims import ledger, markdown
from icdenoise.joblog import configure_job_logging
from icdenoise.studies.mssa.claims import NOT_ATTEMPTED, not_attempted_markdown
from icdenoise.studies.mssa.study import STUDY as study

log = configure_job_logging(snakemake.log[0], "mssa_claims")
frames = {key: read_frames(path) for key, path in snakemake.input.items() if key != "code"}
table = ledger(study.claims, frames, snakemake.params.claims)
write_job_parquet(table, snakemake.output.table, snakemake)
text = markdown(table, study.title, "snakemake mssa", snakemake.params.config_sources)
write_text(snakemake.output.text, text + not_attempted_markdown(snakemake.params.scale))
log.info("%d of %d claims reproduce; %d results not attempted:\n%s", table["passed"].sum(), len(table), len(NOT_ATTEMPTED),
         table[["claim", "paper_value", "ours_mean", "passed"]].to_string(index=False))
