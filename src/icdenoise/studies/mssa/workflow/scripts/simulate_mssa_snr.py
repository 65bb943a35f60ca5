"""Rule simulate_mssa_snr: Fig. 4's table, SNR per layer of unrolled MSSA with the theory line."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.maths.runtime import use_threads
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.studies.mssa.snr import snr_table

log = start_job(snakemake)
use_threads(snakemake.threads)
table = snr_table(snakemake.params.block)
write_job_parquet(table, snakemake.output[0], snakemake)
summary = table.groupby(["delta", "phi", "layer"])[["snr", "theory", "ratio", "leakage"]].mean()
log.info("SNR per layer (mean over seeds), every 5th layer:\n%s", summary[summary.index.get_level_values("layer") % 5 == 0].to_string())
