"""Rule score_<study>_denoisers: a study's own denoisers on one case's fresh evaluation prompts, the
leaderboard's (icdenoise.maths.scoring.evaluate_denoisers). The rule's params name the study's function
that builds them from its settings and the case's block."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

import importlib

from icdenoise.maths.runtime import use_threads
from icdenoise.maths.scoring import evaluate_denoisers
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet

log = start_job(snakemake)
use_threads(snakemake.threads)
params = snakemake.params
module, function = params.denoisers.split(":")
denoisers = getattr(importlib.import_module(module), function)(params.case, **params.settings)
evaluation = params.evaluation
table = evaluate_denoisers(snakemake.wildcards.case, params.case, params.length, denoisers, evaluation["n_prompts"],
                           evaluation["seed"], snakemake.config["execution"]["evaluation"]["chunk_size"])
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("MSE/n:\n%s", table.to_string(index=False))
