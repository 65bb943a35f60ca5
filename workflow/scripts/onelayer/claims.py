"""Rule onelayer_claims: the paper's claims ledger as Parquet and Markdown."""

from icdenoise.warmstart import hand_over

hand_over()

from icdenoise.artifacts import read_frames, write_job_parquet, write_text
from icdenoise.claims import ledger, markdown
from icdenoise.joblog import configure_job_logging
from icdenoise.studies.onelayer.study import STUDY as study

log = configure_job_logging(snakemake.log[0], "onelayer_claims")
tables = {key: paths for key, paths in snakemake.input.items() if key != "code"}
frames = {key: read_frames([paths] if isinstance(paths, str) else paths) for key, paths in tables.items()}
table = ledger(study.claims, frames, snakemake.params.claims)
write_job_parquet(table, snakemake.output.table, snakemake)
write_text(snakemake.output.text, markdown(table, study.title, "snakemake onelayer", snakemake.params.config_sources))
log.info("%d of %d claims reproduce:\n%s", table["passed"].sum(), len(table),
         table[["claim", "paper_value", "ours_mean", "passed"]].to_string(index=False))
