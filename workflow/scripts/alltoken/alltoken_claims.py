"""Rule alltoken_claims: the explainer's claims ledger as Parquet and Markdown."""

from icdenoise.warmstart import hand_over

hand_over()

from icdenoise.artifacts import read_frames, write_job_parquet, write_text
from icdenoise.claims import ledger, markdown
from icdenoise.joblog import configure_job_logging
from icdenoise.studies.alltoken.study import STUDY as study

log = configure_job_logging(snakemake.log[0], "alltoken_claims")
frames = {key: read_frames(path) for key, path in snakemake.input.items() if key != "code"}
table = ledger(study.claims, frames, snakemake.params.claims)
write_job_parquet(table, snakemake.output.table, snakemake)
write_text(snakemake.output.text, markdown(table, study.title, "snakemake alltoken", snakemake.params.config_sources))
log.info("%d of %d claims reproduce:\n%s", table["passed"].sum(), len(table),
         table[["claim", "paper_value", "ours_mean", "passed"]].to_string(index=False))
