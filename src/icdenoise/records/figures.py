"""Shared look of every figure: a light theme on matplotlib's Agg backend, the models' markers and
the colours of the reference lines. Plot modules read tables and draw; they compute nothing."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.layout_engine import PlaceHolderLayoutEngine  # noqa: E402

THEME = {
    "font.size": 8.8, "axes.titlesize": 9.6, "axes.labelsize": 9.6, "xtick.labelsize": 8.8, "ytick.labelsize": 8.8,
    "legend.fontsize": 8.8, "axes.edgecolor": "0.15", "axes.linewidth": 1.0, "xtick.direction": "out",
    "ytick.direction": "out", "xtick.major.size": 4.8, "ytick.major.size": 4.8, "axes.grid": False,
    "lines.linewidth": 1.2, "patch.edgecolor": "white", "legend.frameon": False, "figure.facecolor": "white",
}
MODEL_STYLE = {
    "linear": {"marker": "^", "color": "#1f77b4", "label": "linear attention"},
    "softmax": {"marker": "o", "color": "#d62728", "label": "softmax attention"},
}
BAYES_COLOR = "#e377c2"
OTHER_MODEL_COLORS = ["#2ca02c", "#9467bd", "#8c564b", "#17becf"]
ZERO_COLOR = "grey"
PLUGIN_COLOR = "#2ca02c"


def model_style(model: str) -> dict:
    """The marker, colour and label of a model, by name; models other than linear and softmax get the next
    free colour and their own name."""
    if model in MODEL_STYLE:
        return MODEL_STYLE[model]
    color = OTHER_MODEL_COLORS[sum(map(ord, model)) % len(OTHER_MODEL_COLORS)]
    return {"marker": "s", "color": color, "label": model}


def start_figure(*args, **kwargs):
    """plt.subplots under the common theme."""
    plt.rcParams.update(THEME)
    return plt.subplots(*args, **kwargs)


def save_figure(figure, path) -> None:
    """A reproducible PDF (no creation date), and the figure's memory released.

    `tight_layout()` has already placed the axes of a figure it was called on, but leaves a
    placeholder layout engine behind, which makes `savefig` lay out every text a second time, in a
    draw that paints nothing (0.3–0.5 s of Figure 3's 1.0–1.2 s of saving). It is removed first.
    """
    if isinstance(figure.get_layout_engine(), PlaceHolderLayoutEngine):
        figure.set_layout_engine(None)
    figure.savefig(path, metadata={"CreationDate": None})
    plt.close(figure)
