"""Snakemake script of rule summarise_fig8: learned against optimal structure (eq. A.12)."""

from icdenoise.artifacts import read_frames, write_parquet
from icdenoise.cases import case_transform
from icdenoise.figures.fig8 import structure_tables
from icdenoise.joblog import configure_job_logging

log = configure_job_logging(snakemake.log[0], "summarise_fig8")
fig8, task = snakemake.params.fig8, snakemake.params.task
matrices, similarity = structure_tables(read_frames(snakemake.input.weights), case_transform(task), fig8["models"],
                                        task["sigma0_sq"], task["sigma_z_sq"], fig8["representative_seed"])
for frame, path in ((matrices, snakemake.output.matrices), (similarity, snakemake.output.similarity)):
    write_parquet(frame, path, {"fig8": fig8, "task": task})
log.info("cosine similarity with the optimum:\n%s", similarity.to_string(index=False))
