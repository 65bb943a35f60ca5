"""Rule sweep_mssa_snr: the regime sweep (η, p, δ one at a time) and each point's departure from Theorem 3.1's rate."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.maths.runtime import use_threads
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.studies.mssa.snr import departures, sweep_table

log = start_job(snakemake)
use_threads(snakemake.threads)
sweep = snakemake.params.sweep
layers = sweep_table(snakemake.params.base, sweep)
first_departures = departures(layers, sweep["departure_tolerance"])
write_job_parquet(layers, snakemake.output.layers, snakemake)
write_job_parquet(first_departures, snakemake.output.departures, snakemake)
log.info("first departing layer (median over seeds) and its attention diagnostics:\n%s",
         first_departures.groupby(["factor", "value"])[["departure_layer", "theta_before", "own_self", "noise_self", "leakage"]]
         .median().to_string())
