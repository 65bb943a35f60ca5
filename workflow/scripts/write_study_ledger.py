"""Rule write_<study>_ledger for a study with its own claims lock (a study outside icdenoise.studies): what
workflow/scripts/write_ledger.py does for a built-in study, each claim's definition looked up in the study's
claims.lock and that file's git history instead of config/claims.lock's (icdenoise.records.study_locks).
write_ledger.py stays as it is: its bytes are part of every built-in claim's registered definition."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

import importlib
from pathlib import Path

from icdenoise.pipeline.joblog import start_job
from icdenoise.pipeline.registry import load_studies
from icdenoise.records.artifacts import git_state, read_frames, read_metadata, write_job_parquet, write_text
from icdenoise.records.claims import headline, ledger, markdown
from icdenoise.records.pages import markdown_page
from icdenoise.pipeline.codedeps import code_digest, study_code_files
from icdenoise.records.registration import study_digests
from icdenoise.records.study_locks import study_registration

log = start_job(snakemake)
params = snakemake.params
claims = importlib.import_module(params.claims_module)
tables = {name: paths for name, paths in snakemake.input.items() if name not in ("code", "lock")}
frames = {name: read_frames(paths) for name, paths in tables.items()}
study = load_studies({params.study: params.package})[params.study]
workflow_dir = Path(snakemake.scriptdir).parent  # workflow/ (not a param: a copied workflow keeps its ledgers)
code = code_digest(study_code_files(study, workflow_dir, params.trains_in_shared_stage), workflow_dir)
digests = study_digests(params.study, claims.CLAIMS, params.claims, params.settings, params.registered_as, code)
paths = [path for entry in tables.values() for path in ([entry] if isinstance(entry, str) else entry)]
provenance = {path: read_metadata(path) for path in paths if str(path).endswith(".parquet")}
rows = study_registration(study.own_lock, digests, git_state(), provenance)
table = ledger(claims.CLAIMS, frames, params.claims, rows)
write_job_parquet(table, snakemake.output.table, snakemake)
appendix = claims.markdown_appendix(**params.appendix) if hasattr(claims, "markdown_appendix") else ""
text = markdown(table, params.title, f"snakemake {params.study}", params.config_sources) + appendix
write_text(snakemake.output.text, text)
write_text(snakemake.output.page, markdown_page(text, f"Claims ledger: {params.title}"))
log.info("%s\n%s", headline(table), table[["claim", "paper_value", "ours_mean", "interval_low", "interval_high", "verdict",
                                              "defined_in", "registered"]].to_string(index=False))
