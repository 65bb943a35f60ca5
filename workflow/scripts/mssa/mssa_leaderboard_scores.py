"""Rule mssa_leaderboard_scores: unrolled MSSA with the prompts' own bases on the leaderboard's fresh prompts."""

from icdenoise.warmstart import hand_over

hand_over()

from icdenoise.artifacts import write_job_parquet
from icdenoise.joblog import configure_job_logging
from icdenoise.runtime import use_threads
from icdenoise.scoring import evaluate_denoisers
from icdenoise.studies.mssa.known_bases import known_bases_denoisers

case, length = snakemake.wildcards.case, snakemake.params.length
log = configure_job_logging(snakemake.log[0], f"mssa_leaderboard_scores {case} L={length}")
use_threads(snakemake.threads)
block, settings, evaluation = snakemake.params.case, snakemake.params.settings, snakemake.params.evaluation
denoisers = known_bases_denoisers(settings["layers"], settings["eta"], settings["tau"])
table = evaluate_denoisers(case, block, length, denoisers, evaluation["n_prompts"], evaluation["seed"], evaluation["chunk_size"])
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("unrolled MSSA with known bases (MSE/n):\n%s", table.to_string(index=False))
