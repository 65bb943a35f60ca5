"""Rule scan_fresh_loss_landscape: the Figure 6 grid of one case on the evaluation's fresh prompts."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import read_frames, write_job_parquet
from icdenoise.studies.onelayer.landscape import fresh_landscape_table

case = snakemake.wildcards.case
log = start_job(snakemake)
fig6, block, evaluation = snakemake.params.fig6, snakemake.params.case, snakemake.params.evaluation
summary = read_frames(snakemake.input.summary, finite=["alpha", "beta"])
trained = summary[(summary["case"] == case) & (summary["model"] == fig6["model"])]
table = fresh_landscape_table(case, block, trained, fig6, evaluation["n_prompts"], evaluation["seed"],
                              snakemake.config["execution"]["evaluation"]["chunk_size"])
write_job_parquet(table, snakemake.output[0], snakemake)
log.info("marked points:\n%s", table[table["kind"] != "grid"].to_string(index=False))
