"""Rule simulate_memory_noisy_logits: slide 23's one-step logits on noisy inputs over η/N, by Monte Carlo, per d and draw."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.maths.runtime import use_threads
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.studies.memory.noisy_logits import logit_table

log = start_job(snakemake)
use_threads(snakemake.threads)
table = logit_table(snakemake.params.block)
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("mean ratio per d (right pairs, wrong pairs) against the expectation:\n%s",
         table.groupby("d")[["correct", "wrong", "expected_correct", "expected_wrong"]].mean().round(4).to_string())
