"""Figure 2: the baseline estimators of the linear case in n = 3, from the Figure 1(b) table: the
projection P x̃, the Bayes estimate σ0²/(σ0²+σ_z²) P x̃ of eq. 3, the plug-in of eq. 10 and the
trained model."""

from __future__ import annotations

import numpy as np
import pandas as pd

from icdenoise.records.figures import start_figure
from icdenoise.studies.onelayer.plots.fig1 import KIND_STYLE, draw_surface, scatter_points


def render(tables: dict[str, pd.DataFrame], case: str):
    """The case's prompt of tables["points"]: P x̃, the Bayes estimate (its shrinkage read from the table),
    eq. 10 and the model."""
    table = tables["points"]
    points = table[table["case"] == case]
    shrinkage = points["shrinkage"].iloc[0]
    figure = start_figure(figsize=(7, 6))[0]
    figure.clf()
    ax = figure.add_subplot(1, 1, 1, projection="3d")
    draw_surface(ax, points, "linear")
    for kind in ("context", "target", "query", "projection", "bayes", "plugin", "model"):
        scatter_points(ax, points, kind)
    query, projection, bayes = (points[points["kind"] == kind][["x", "y", "z"]].to_numpy()[0] for kind in ("query", "projection", "bayes"))
    ax.plot(*zip(query, projection), color=KIND_STYLE["projection"]["color"], linestyle="--", linewidth=1)
    ax.plot(*zip(np.zeros(3), projection), color="black", linewidth=0.6)
    ax.legend(fontsize=7, loc="upper left")
    ax.set_title(f"Figure 2 — baseline estimators, linear subspace in n = 3: P x̃, the Bayes estimate {shrinkage:.3f} · P x̃ (eq. 3),\n"
                 f"the plug-in of eq. 10 and trained linear attention (seed {points['seed'].iloc[0]})", fontsize=9)
    figure.tight_layout()
    return figure
