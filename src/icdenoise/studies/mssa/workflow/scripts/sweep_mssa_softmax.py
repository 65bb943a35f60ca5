"""Rule sweep_mssa_softmax: plain softmax φ across η, p and N, the SNR per layer and how long it stays above SNR₀."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.pipeline.joblog import start_job
from icdenoise.maths.runtime import use_threads
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.studies.mssa.snr import softmax_gains, softmax_sweep_table

log = start_job(snakemake)
use_threads(snakemake.threads)
layers = softmax_sweep_table(snakemake.params.base, snakemake.params.sweep)
gains = softmax_gains(layers)
write_job_parquet(layers, snakemake.output.layers, snakemake)
write_job_parquet(gains, snakemake.output.gains, snakemake)
log.info("softmax φ: layers above SNR₀ and largest gain (median over seeds):\n%s",
         gains.groupby(["factor", "value"])[["layers_above", "largest_gain", "best_layer"]].median().to_string())
