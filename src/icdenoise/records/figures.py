"""Shared look of every figure: a light theme on matplotlib's Agg backend, the models' markers and
the colours of the reference lines, the strip for the footer that names the run (its text: records.footers),
and the claims ledger's slopes drawn as the ledger reports them. Plot modules read tables and draw; a slope or
rate a figure prints is a column of a fit table or of the ledger."""

from __future__ import annotations

import matplotlib
import numpy as np

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.layout_engine import ConstrainedLayoutEngine, PlaceHolderLayoutEngine  # noqa: E402

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
IMAGE_DPI = 100  # the PNG beside each PDF, which the report shows inline
FOOTER_INCHES = 0.2  # the strip added below a figure for its footer


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


def add_footer(figure, text: str) -> None:
    """Grow the figure by a strip of FOOTER_INCHES at its bottom and write `text` there, small and grey; the
    axes and figure texts keep their size and their place from the top."""
    height = figure.get_figheight()
    grown = height + FOOTER_INCHES
    strip = FOOTER_INCHES / grown
    figure.set_figheight(grown)
    engine = figure.get_layout_engine()
    if isinstance(engine, ConstrainedLayoutEngine):
        engine.set(rect=(0, strip, 1, 1 - strip))
    else:
        for ax in figure.axes:
            box = ax.get_position(original=True)
            ax.set_position([box.x0, strip + box.y0 * (1 - strip), box.width, box.height * (1 - strip)])
        for label in figure.texts:
            label.set_y(strip + label.get_position()[1] * (1 - strip))
    label = figure.text(0.005, strip / 2, text, fontsize=6, color="0.4", ha="left", va="center", parse_math=False)
    fit_to_width(figure, label)


def fit_to_width(figure, label) -> None:
    """Cut the text `label` (a figure text starting at its left edge) short, ending in "…", until it fits inside
    the figure's width; a text that fits is left whole."""
    text = label.get_text()
    limit = figure.bbox.width * (1 - 2 * label.get_position()[0])
    while len(text) > 1 and label.get_window_extent().width > limit:
        text = text[: max(1, int(len(text) * limit / label.get_window_extent().width) - 1)]
        label.set_text(text.rstrip() + "…")


def save_figure(figure, path, image=None, footer: str | None = None) -> None:
    """A reproducible PDF (no creation date) at `path`, with `footer` (records.footers.footer_text) below the figure where
    given, and the same figure as a PNG at `image` (IMAGE_DPI) where given; then the figure's memory released.

    `tight_layout()` has already placed the axes of a figure it was called on, but leaves a
    placeholder layout engine behind, which makes `savefig` lay out every text a second time, in a
    draw that paints nothing (0.3–0.5 s of Figure 3's 1.0–1.2 s of saving). It is removed first.

    A constrained layout is computed once, in the PDF's save (its layout pass, then its paint), and the PNG is painted
    at that layout without a pass of its own: the PDF is what it is without a PNG, and the PNG's axes lie where the
    PDF's do.
    """
    if isinstance(figure.get_layout_engine(), PlaceHolderLayoutEngine):
        figure.set_layout_engine(None)
    if footer:
        add_footer(figure, footer)
    figure.savefig(path, metadata={"CreationDate": None})
    if image is not None:
        figure.set_layout_engine(None)  # the PDF's layout, kept for the PNG
        figure.savefig(image, dpi=IMAGE_DPI)
    plt.close(figure)


def ledger_text(ledger, claim: str) -> str | None:
    """'<claim> (ledger): <ours_mean> [<interval_low>, <interval_high>], <verdict>' from the claims ledger's row of `claim`
    (icdenoise.records.claims.ledger; the interval where the ledger has one, 'no value' where its mean is not
    finite), or None where the ledger has no such row (the run's config does not list the claim)."""
    rows = ledger[ledger["claim"] == claim]
    if rows.empty:
        return None
    row = rows.iloc[0]
    if not np.isfinite(row["ours_mean"]):
        return f"{claim} (ledger): no value, {row['verdict']}"
    interval = f" [{row['interval_low']:.2f}, {row['interval_high']:.2f}]" if np.isfinite(row["interval_low"]) else ""
    return f"{claim} (ledger): {row['ours_mean']:.2f}{interval}, {row['verdict']}"


def draw_ledger_slope(ax, ledger, claim: str, x, y, **style) -> None:
    """The log-log slope that the claims ledger reports for `claim` (its `ours_mean`), as a line through the
    geometric mean of the positive points (x, y) over their x range, labelled 'slope, ' and `ledger_text`; only the
    label where the ledger's value is not finite or the points have fewer than two x, nothing where the ledger has no
    row for `claim`. A least-squares line passes through that mean, so over the points the claim fits it is
    the ledger's fitted line."""
    text = ledger_text(ledger, claim)
    if text is None:
        return
    label = f"slope, {text}"
    x, y = np.asarray(x, float), np.asarray(y, float)
    points = (x > 0) & (y > 0) & np.isfinite(x) & np.isfinite(y)
    slope = float(ledger.loc[ledger["claim"] == claim, "ours_mean"].iloc[0])
    if np.unique(x[points]).size < 2 or not np.isfinite(slope):
        ax.plot([], [], linestyle="none", label=label)
        return
    centre_x, centre_y = np.exp(np.log(x[points]).mean()), np.exp(np.log(y[points]).mean())
    span = np.geomspace(x[points].min(), x[points].max(), 50)
    ax.plot(span, centre_y * (span / centre_x) ** slope, label=label, **style)
