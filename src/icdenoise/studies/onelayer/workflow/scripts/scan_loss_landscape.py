"""Rule scan_loss_landscape: the Figure 6 grid of one case."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import read_frames, write_job_parquet
from icdenoise.records.datasets import read_dataset
from icdenoise.studies.onelayer.landscape import landscape_table

case = snakemake.wildcards.case
log = start_job(snakemake)
fig6, block = snakemake.params.fig6, snakemake.params.case
prompts, is_train = read_dataset(snakemake.input.dataset)
rows = is_train if fig6["split"] == "train" else ~is_train
summary = read_frames(snakemake.input.summary, finite=["alpha", "beta"])
trained = summary[(summary["case"] == case) & (summary["model"] == fig6["model"])]
table = landscape_table(case, prompts.context[rows], prompts.query[rows], prompts.target[rows],
                        block["corruption"]["sigma_z_sq"], trained, fig6)
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("marked points:\n%s", table[table["kind"] != "grid"].to_string(index=False))
