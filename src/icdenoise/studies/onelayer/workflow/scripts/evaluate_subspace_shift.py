"""Rule evaluate_subspace_shift: Figure 4(b), the trained model on shifted subspace dimensions."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

import pandas as pd

from icdenoise.maths.runtime import use_threads
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import write_job_parquet
from icdenoise.studies.onelayer.subspace_shift import subspace_shift_table

log = start_job(snakemake)
use_threads(snakemake.threads)
fig4b, block = snakemake.params.fig4b, snakemake.params.case
table = subspace_shift_table(pd.read_parquet(snakemake.input.weights), snakemake.params.architecture, block, fig4b["subspace_dims"],
                             fig4b["context_lengths"], fig4b["n_prompts"], fig4b["seed"])
write_job_parquet(table, snakemake.output[0], snakemake)
summary = table.groupby(["stage", "L", "d_prime"])["loss_per_dim"].mean().unstack("d_prime")
log.info("y = MSE·n/d' (mean over seeds):\n%s", summary.to_string(float_format=lambda x: f"{x:.3f}"))
