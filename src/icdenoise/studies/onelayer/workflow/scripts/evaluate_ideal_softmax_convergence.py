"""Rule evaluate_ideal_softmax_convergence: Theorem 3.1's excess of eq. 13 over Bayes against L, and its rate."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.studies.onelayer.convergence import convergence_table, rate_fit

log = start_job(snakemake)
theorem = snakemake.params.theorem31
chunk_size = snakemake.config["execution"]["onelayer"]["theorem31"]["chunk_size"]  # how it runs: not a param
table = convergence_table(snakemake.params.case, {**theorem, "chunk_size": chunk_size})
fit = rate_fit(table, theorem["fit_from"])
write_job_parquet(table, snakemake.output.table, snakemake)
write_job_parquet(fit, snakemake.output.fit, snakemake)
log.info("excess of eq. 13 over Bayes by L:\n%s\nfitted slope over L ≥ %d: %.3f [%.3f, %.3f]", table.to_string(index=False),
         theorem["fit_from"], fit["slope"].iloc[0], fit["ci_low"].iloc[0], fit["ci_high"].iloc[0])
