"""Snakemake script of rule claims: the claims ledger as Parquet and Markdown."""

from pathlib import Path

from icdenoise.artifacts import read_frames, write_parquet
from icdenoise.claims import ledger, markdown
from icdenoise.joblog import configure_job_logging

log = configure_job_logging(snakemake.log[0], "claims")
frames = {key: read_frames([paths] if isinstance(paths, str) else paths) for key, paths in snakemake.input.items()}
table = ledger(frames, snakemake.config)
write_parquet(table, snakemake.output.table, {"claims": snakemake.params.claims})
temporary = Path(snakemake.output.text).with_suffix(".md.tmp")
temporary.write_text(markdown(table))
temporary.replace(snakemake.output.text)
log.info("%d of %d claims reproduce:\n%s", table["passed"].sum(), len(table),
         table[["claim", "paper_value", "ours_mean", "passed"]].to_string(index=False))
