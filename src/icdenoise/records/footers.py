"""The footer that names a figure's run: its name and the settings where it differs from the paper's config.

Apart from the shared look (`records.figures`) because Snakemake's own process writes it into each plot rule's
params while it parses the rules files, at every call: this module imports no matplotlib."""

from __future__ import annotations

FOOTER_KEYS = 2  # changed settings a footer spells out; it counts the rest
FOOTER_VALUE_CHARS = 24  # a longer value is cut to this many characters


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
