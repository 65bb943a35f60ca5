"""Rule compare_learned_structure: learned against optimal structure (eq. A.12), Figure 8."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.maths.cases import make_case
from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import read_frames, write_job_parquet
from icdenoise.studies.onelayer.structure import structure_tables

log = start_job(snakemake)
fig8, block = snakemake.params.fig8, snakemake.params.case
matrices, similarity = structure_tables(read_frames(snakemake.input.weights, finite=["value"]), make_case(block).transform, snakemake.params.architectures,
                                        block["sigma0_sq"], block["corruption"]["sigma_z_sq"], fig8["representative_seed"])
for frame, path in ((matrices, snakemake.output.matrices), (similarity, snakemake.output.similarity)):
    write_job_parquet(frame, path, snakemake)
log.info("cosine similarity with the optimum:\n%s", similarity.to_string(index=False))
