"""Rule compare_learned_structure: learned against optimal structure (eq. A.12), Figure 8."""

from icdenoise.warmstart import hand_over

hand_over()

from icdenoise.artifacts import read_frames, write_job_parquet
from icdenoise.cases import make_case
from icdenoise.joblog import configure_job_logging
from icdenoise.studies.onelayer.structure import structure_tables

log = configure_job_logging(snakemake.log[0], "compare_learned_structure")
fig8, block = snakemake.params.fig8, snakemake.params.case
matrices, similarity = structure_tables(read_frames(snakemake.input.weights, finite=["value"]), make_case(block).transform, snakemake.params.architectures,
                                        block["sigma0_sq"], block["corruption"]["sigma_z_sq"], fig8["representative_seed"])
for frame, path in ((matrices, snakemake.output.matrices), (similarity, snakemake.output.similarity)):
    write_job_parquet(frame, path, snakemake)
log.info("cosine similarity with the optimum:\n%s", similarity.to_string(index=False))
