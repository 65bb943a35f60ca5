"""Rule write_<study>_ledger: a study's claims ledger as Parquet and Markdown, from its Parquet tables
(icdenoise.records.claims; the study's claims module and its claims block are the rule's params), and the
Markdown as an HTML page for the report (icdenoise.records.pages)."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

import importlib

from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import read_frames, write_job_parquet, write_text
from icdenoise.records.claims import ledger, markdown
from icdenoise.records.pages import markdown_page

log = start_job(snakemake)
params = snakemake.params
claims = importlib.import_module(params.claims_module)
frames = {name: read_frames(paths) for name, paths in snakemake.input.items() if name != "code"}
table = ledger(claims.CLAIMS, frames, params.claims)
write_job_parquet(table, snakemake.output.table, snakemake)
appendix = claims.markdown_appendix(**params.appendix) if hasattr(claims, "markdown_appendix") else ""
text = markdown(table, params.title, f"snakemake {params.study}", params.config_sources) + appendix
write_text(snakemake.output.text, text)
write_text(snakemake.output.page, markdown_page(text, f"Claims ledger: {params.title}"))
log.info("%d of %d claims reproduce:\n%s", table["passed"].sum(), len(table),
         table[["claim", "paper_value", "ours_mean", "passed"]].to_string(index=False))
