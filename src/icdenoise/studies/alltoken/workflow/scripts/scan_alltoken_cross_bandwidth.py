"""Rule scan_alltoken_cross_bandwidth: the two-stage MSE against Stage 2's β_c at fixed Stage 1."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.pipeline.joblog import start_job
from icdenoise.maths.runtime import use_threads
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.studies.alltoken.mse import cross_bandwidth_scan

log = start_job(snakemake)
use_threads(snakemake.threads)
table = cross_bandwidth_scan(snakemake.params.case, snakemake.params.block, snakemake.params.scan)
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("two-stage MSE/σ² by β_c σ² (mean over contexts):\n%s", table.groupby("beta_c_sigma2")["mse_over_sigma2"].mean().to_string())
