"""Shared look of every figure: theme, model markers and the colours of the reference lines."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import seaborn as sns  # noqa: E402

MODEL_STYLE = {
    "linear": {"marker": "^", "color": "#1f77b4", "label": "linear attention"},
    "softmax": {"marker": "o", "color": "#d62728", "label": "softmax attention"},
}
BAYES_COLOR = "#e377c2"
ZERO_COLOR = "grey"
PLUGIN_COLOR = "#2ca02c"


def start_figure(*args, **kwargs):
    """plt.subplots under the common theme."""
    sns.set_theme(style="ticks", context="paper")
    return plt.subplots(*args, **kwargs)


def save_figure(figure, path) -> None:
    """A reproducible PDF (no creation date), and the figure's memory released."""
    figure.savefig(path, metadata={"CreationDate": None})
    plt.close(figure)
