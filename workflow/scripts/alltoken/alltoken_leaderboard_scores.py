"""Rule alltoken_leaderboard_scores: the empirical-Bayes estimators on the leaderboard's fresh prompts."""

from icdenoise.warmstart import hand_over

hand_over()

from icdenoise.artifacts import write_job_parquet
from icdenoise.empirical_bayes import empirical_bayes_denoisers
from icdenoise.joblog import configure_job_logging
from icdenoise.runtime import use_threads
from icdenoise.scoring import evaluate_denoisers

case, length = snakemake.wildcards.case, snakemake.params.length
log = configure_job_logging(snakemake.log[0], f"alltoken_leaderboard_scores {case} L={length}")
use_threads(snakemake.threads)
block, mse, evaluation = snakemake.params.case, snakemake.params.mse, snakemake.params.evaluation
denoisers = empirical_bayes_denoisers(mse["beta"], mse["eta"], mse["depth"], block["corruption"]["sigma_z_sq"])
table = evaluate_denoisers(case, block, length, denoisers, evaluation["n_prompts"], evaluation["seed"], evaluation["chunk_size"])
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("empirical-Bayes estimators (MSE/n):\n%s", table.to_string(index=False))
