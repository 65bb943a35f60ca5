"""Rule plot_<figure>: one figure, drawn from its Parquet tables only by its drawing module's
`render(tables, **settings)` (the module and the settings are the rule's params), saved as a PDF and a PNG
with the rule's footer (the run, and its settings that differ from the paper config's)."""

from icdenoise.pipeline.warmstart import hand_over

hand_over()

import importlib

from icdenoise.pipeline.joblog import start_job
from icdenoise.records.artifacts import read_frames
from icdenoise.records.figures import save_figure

log = start_job(snakemake)
drawing = importlib.import_module(snakemake.params.drawing)
tables = {name: read_frames(paths) for name, paths in snakemake.input.items() if name != "code"}
save_figure(drawing.render(tables, **snakemake.params.settings), snakemake.output.figure, image=snakemake.output.image,
            footer=snakemake.params.footer)
log.info("wrote %s and %s", snakemake.output.figure, snakemake.output.image)
