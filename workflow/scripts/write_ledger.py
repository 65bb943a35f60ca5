"""Rule write_<study>_ledger: a study's claims ledger as Parquet and Markdown, from its Parquet tables
(icdenoise.records.claims; the study's claims module, its claims block and the settings its claims depend
on are the rule's params), each claim's definition (with its code and its study's, as syntax) looked up in
the study's own claims.lock and its git history (icdenoise.records.study_locks), each row registered or not, each
claim's history in git
(when its bound and deciding settings took their current values, its first committed result, and so whether it is
confirmatory: icdenoise.records.history), Holm's family-wise adjustment beside each verdict
(icdenoise.records.holm), and the Markdown as an HTML page for the report
(icdenoise.records.ledger_text, icdenoise.records.pages)."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

import importlib
from pathlib import Path

from icdenoise.pipeline.definitions import claim_code, study_code
from icdenoise.pipeline.joblog import start_job
from icdenoise.pipeline.registry import load_studies
from icdenoise.records.artifacts import git_state, read_frames, read_metadata, write_job_parquet, write_text
from icdenoise.records.claims import ledger
from icdenoise.records.history import ledger_history, with_history
from icdenoise.records.holm import with_holm
from icdenoise.records.ledger_text import headline, markdown
from icdenoise.records.pages import markdown_page
from icdenoise.records.registration import repository, study_digests
from icdenoise.records.study_locks import study_registration

log = start_job(snakemake)
params = snakemake.params
claims = importlib.import_module(params.claims_module)
tables = {name: paths for name, paths in snakemake.input.items() if name not in ("code", "lock")}
frames = {name: read_frames(paths) for name, paths in tables.items()}
study = load_studies({params.study: params.package})[params.study]
workflow_dir = Path(snakemake.scriptdir).parent  # workflow/ (not a param: a copied workflow keeps its ledgers)
code = study_code(study, workflow_dir, params.trains_in_shared_stage)
digests = study_digests(params.study, claims.CLAIMS, params.claims, params.settings, params.registered_as, code,
                        claim_code)
paths = [path for entry in tables.values() for path in ([entry] if isinstance(entry, str) else entry)]
provenance = {path: read_metadata(path) for path in paths if str(path).endswith(".parquet")}
rows = study_registration(study.own_lock, digests, git_state(), provenance, workflow=workflow_dir)
table = ledger(claims.CLAIMS, frames, params.claims, rows)
config_files = [entry["file"] for entry in params.config_sources["files"]]
table = with_history(table, ledger_history(repository(workflow_dir), study, config_files, params.registered_as))
table = with_holm(table)  # the family-wise adjustment beside each verdict, which it never changes
write_job_parquet(table, snakemake.output.table, snakemake)
appendix = claims.markdown_appendix(**params.appendix) if hasattr(claims, "markdown_appendix") else ""
text = markdown(table, params.title, f"snakemake {params.study}", params.config_sources) + appendix
write_text(snakemake.output.text, text)
write_text(snakemake.output.page, markdown_page(text, f"Claims ledger: {params.title}"))
log.info("%s\n%s", headline(table), table[["claim", "paper_value", "ours_mean", "interval_low", "interval_high", "verdict",
                                              "defined_in", "registered", "first_written", "first_result",
                                              "confirmatory"]].to_string(index=False))
