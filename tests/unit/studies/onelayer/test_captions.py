"""The onelayer study's report captions as Snakemake's report renders them: Jinja with its environment's settings,
then reStructuredText."""

from types import SimpleNamespace

import jinja2
from docutils.core import publish_parts

from icdenoise.pipeline.config import load_yaml


def rendered_text(path, config: dict) -> str:
    """The caption's words as the report shows them (HTML tags dropped, whitespace folded)."""
    template = jinja2.Environment(trim_blocks=True, lstrip_blocks=True).from_string(path.read_text())
    html = publish_parts(template.render(snakemake=SimpleNamespace(config=config)), writer="html")["body"]
    return " ".join(html.replace("<p>", " ").replace("</p>", " ").split())


def test_the_figure_3_caption_keeps_a_space_before_its_first_case(repo):
    text = rendered_text(repo / "src/icdenoise/studies/onelayer/workflow/report/fig3.rst", load_yaml(repo / "config" / "config.yaml"))
    assert "for the cases linear, sphere, gmm (n = 16, L = 500 in the linear case)." in text
