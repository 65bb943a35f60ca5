"""The footer that names a figure's run: its name and the settings where it differs from the paper's config,
drawn below the figure (`footer_text`) and, every such setting spelled out, after its caption in the report
(`footed_caption`).

Apart from the shared look (`records.figures`) because Snakemake's own process writes it into each plot rule's
params while it parses the rules files, at every call: this module imports no matplotlib."""

from __future__ import annotations

import hashlib
from pathlib import Path

FOOTER_KEYS = 2  # changed settings a footer spells out; it counts the rest
FOOTER_VALUE_CHARS = 24  # a longer value is cut to this many characters
CAPTIONS = Path(".snakemake") / "icdenoise" / "captions"  # the figures' captions with their footers, as the report reads them
# The footer after a figure's caption (Snakemake renders a caption as a Jinja template with its job's params): the
# run, and every setting the plot rule's `differences` param lists (as `key: paper's value → this run's value`), if any.
CAPTION_FOOTER = """
Run ``{{ snakemake.config["run"]["name"] }}``
{%- if snakemake.params.differences %}: this figure's settings that differ from ``config/config.yaml``
({{ snakemake.params.differences | length }}):

{% for difference in snakemake.params.differences %}
- ``{{ difference }}``
{% endfor %}
{% else %}.
{% endif %}
"""


def footer_text(run: str, differences, paper: str = "config/config.yaml") -> str:
    """A figure's footer: its run, and the first FOOTER_KEYS settings that differ from the paper's config,
    as (key, paper's value, this run's value) triples (icdenoise.experiments.comparison.config_differences),
    with the count of the others."""

    def short(value: str) -> str:
        return value if len(value) <= FOOTER_VALUE_CHARS else value[: FOOTER_VALUE_CHARS - 1] + "…"

    differences = list(differences)
    if not differences:
        return f"run: {run}"
    shown = "; ".join(f"{key}: {short(old)} → {short(new)}" for key, old, new in differences[:FOOTER_KEYS])
    more = len(differences) - FOOTER_KEYS
    return f"run: {run}; differs from {paper} in {shown}" + (f" and {more} more" if more > 0 else "")


def footed_caption(caption) -> Path:
    """Write the report caption `caption` (.rst) followed by CAPTION_FOOTER into CAPTIONS (in the working
    directory) and return the copy's absolute path, the caption the report renders. The copy's name starts
    with a digest of the caption's path, so that two captions of the same name stay apart."""
    caption = Path(caption)
    copy = CAPTIONS / f"{hashlib.sha256(str(caption).encode()).hexdigest()[:12]}_{caption.name}"
    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.write_text(caption.read_text().rstrip("\n") + "\n" + CAPTION_FOOTER)
    return copy.resolve()
