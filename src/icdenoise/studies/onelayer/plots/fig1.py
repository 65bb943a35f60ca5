"""Figure 1(b): one test prompt per task in n = 3 (context, query, target, the Bayes estimate and the
trained model's estimate), drawn from `example_prompts.points_table`."""

from __future__ import annotations

import numpy as np
import pandas as pd

from icdenoise.records.figures import BAYES_COLOR, model_style, start_figure

KIND_STYLE = {
    "context": {"color": "#555555", "marker": "o", "s": 6, "label": "context tokens"},
    "target": {"color": "black", "marker": "*", "s": 120, "label": "target x"},
    "query": {"color": "#1f77b4", "marker": "s", "s": 45, "label": "query x̃"},
    "bayes": {"color": BAYES_COLOR, "marker": "o", "s": 60, "label": "Bayes E[x | x̃]"},
    "model": {"color": "#d62728", "marker": "D", "s": 45, "label": "trained attention"},
    "projection": {"color": "#2ca02c", "marker": "^", "s": 55, "label": "projection P x̃"},
    "plugin": {"color": "#ff7f0e", "marker": "v", "s": 55, "label": "plug-in σ0²/(σ0²+σ_z²) P̂ x̃ (eq. 10)"},
}
TASK_TITLES = {"linear": "linear subspace", "sphere": "sphere", "gmm": "Gaussian mixture"}


def scatter_points(ax, points: pd.DataFrame, kind: str) -> None:
    mine = points[points["kind"] == kind]
    style = KIND_STYLE[kind]
    ax.scatter(mine["x"], mine["y"], mine["z"], color=style["color"], marker=style["marker"], s=style["s"],
               label=style["label"], depthshade=False, edgecolor="black" if kind != "context" else None, linewidth=0.4)


def draw_surface(ax, points: pd.DataFrame, case_task: str) -> None:
    """The plane of the linear case, or the circle of the sphere case, from the stored basis."""
    basis = points[points["kind"] == "basis"][["x", "y", "z"]].to_numpy()
    if case_task == "linear":
        u, v = np.meshgrid(np.linspace(-3, 3, 2), np.linspace(-3, 3, 2))
        plane = u[..., None] * basis[0] + v[..., None] * basis[1]
        ax.plot_surface(plane[..., 0], plane[..., 1], plane[..., 2], alpha=0.12, color="#2ca02c")
    elif case_task == "sphere" and len(basis) == 2:  # a circle: drawn thin and under the tokens
        angle = np.linspace(0, 2 * np.pi, 200)
        radius = np.linalg.norm(points[points["kind"] == "context"][["x", "y", "z"]].to_numpy(), axis=1).mean()
        circle = radius * (np.cos(angle)[:, None] * basis[0] + np.sin(angle)[:, None] * basis[1])
        ax.plot(circle[:, 0], circle[:, 1], circle[:, 2], color="#2ca02c", linewidth=0.5, alpha=0.6)


def render(tables: dict[str, pd.DataFrame], tasks: dict[str, str]):
    """One 3-D panel per case of tables["points"]; `tasks`: case → its task."""
    table = tables["points"]
    cases = list(dict.fromkeys(table["case"]))
    figure = start_figure(figsize=(5 * len(cases), 5))[0]
    figure.clf()
    for column, case in enumerate(cases, start=1):
        ax = figure.add_subplot(1, len(cases), column, projection="3d")
        points = table[table["case"] == case]
        draw_surface(ax, points, tasks[case])
        for kind in ("context", "target", "query", "bayes", "model"):
            scatter_points(ax, points, kind)
        for kind, style in (("bayes", "--"), ("model", ":")):
            query = points[points["kind"] == "query"][["x", "y", "z"]].to_numpy()[0]
            end = points[points["kind"] == kind][["x", "y", "z"]].to_numpy()[0]
            ax.plot(*zip(query, end), color=KIND_STYLE[kind]["color"], linestyle=style, linewidth=1)
        model = points["model"].iloc[0]
        ax.set_title(f"{TASK_TITLES[tasks[case]]}: {model_style(model)['label']} (seed {points['seed'].iloc[0]})", fontsize=10)
        ax.set_box_aspect((1, 1, 1))
        ax.legend(fontsize=7, loc="upper left")
    figure.suptitle("Figure 1(b) — one prompt per task in n = 3: context, query, target and the two estimates")
    figure.tight_layout()
    return figure
