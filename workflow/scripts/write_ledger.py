"""Rule write_<study>_ledger: a study's claims ledger as Parquet and Markdown, from its Parquet tables
(icdenoise.records.claims; the study's claims module, its claims block and the settings its claims depend
on are the rule's params), each claim's definition looked up in config/claims.lock and its git history
(icdenoise.records.registration), and the Markdown as an HTML page for the report (icdenoise.records.pages)."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

import importlib
from pathlib import Path

from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import read_frames, write_job_parquet, write_text
from icdenoise.records.claims import headline, ledger, markdown
from icdenoise.records.pages import markdown_page
from icdenoise.records.registration import defined_in, study_digests

log = start_job(snakemake)
params = snakemake.params
claims = importlib.import_module(params.claims_module)
frames = {name: read_frames(paths) for name, paths in snakemake.input.items() if name not in ("code", "lock")}
digests = study_digests(params.study, claims.CLAIMS, params.claims, params.settings, params.registered_as)
table = ledger(claims.CLAIMS, frames, params.claims, defined_in(Path(snakemake.input.lock).resolve().parents[1], params.study, digests))
write_job_parquet(table, snakemake.output.table, snakemake)
appendix = claims.markdown_appendix(**params.appendix) if hasattr(claims, "markdown_appendix") else ""
text = markdown(table, params.title, f"snakemake {params.study}", params.config_sources) + appendix
write_text(snakemake.output.text, text)
write_text(snakemake.output.page, markdown_page(text, f"Claims ledger: {params.title}"))
log.info("%s\n%s", headline(table), table[["claim", "paper_value", "ours_mean", "interval_low", "interval_high", "verdict",
                                              "defined_in"]].to_string(index=False))
