"""Figures 1(b) and 2 drawn from data in n = 3.

Fig. 1(b): per case, one test prompt's context tokens, query, target, the Bayes estimate
(eqs. 3, 6, 7) and the trained model's estimate. Fig. 2 (linear case): the projection P x̃
against the Bayes estimate σ0²/(σ0²+σ_z²) P x̃ (eq. 3), which shrinks it toward the origin.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..bayes import ESTIMATORS
from ..tasks import Prompts, make_task
from ..training import ensemble_from_frame, predict
from .style import BAYES_COLOR, MODEL_STYLE, start_figure

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


def _rows(case: str, kind: str, points: np.ndarray) -> pd.DataFrame:
    points = np.atleast_2d(points)
    return pd.DataFrame({"case": case, "kind": kind, "index": np.arange(len(points)),
                         "x": points[:, 0], "y": points[:, 1], "z": points[:, 2]})


def drawn_seed(losses: pd.DataFrame, choice: int | str) -> int:
    """`choice`, or for "best" the seed with the lowest final test MSE of the run."""
    if choice != "best":
        return int(choice)
    test = losses[(losses["split"] == "test") & (losses["step"] == losses["step"].max())]
    return int(test.loc[test["mse"].idxmin(), "seed"])


def points_table(case: str, block: dict, prompts: Prompts, is_train: np.ndarray, weights: pd.DataFrame, model: str,
                 test_prompt: int, seed: int) -> pd.DataFrame:
    """Columns case, model, seed, kind (context | target | query | bayes | model | projection | basis | centre),
    index, x, y, z, for test prompt number `test_prompt` of the case's dataset."""
    task = make_task(block)
    index = int(np.flatnonzero(~is_train)[test_prompt])
    prompt = prompts.select(slice(index, index + 1))
    bayes = ESTIMATORS[task.name]["oracle"](prompt, task)
    seeds, ensemble = ensemble_from_frame(weights, model, "final")
    estimate = predict(ensemble, prompt.context, prompt.query)[seeds.index(seed)]
    frames = [_rows(case, "context", prompt.context[0]), _rows(case, "target", prompt.target), _rows(case, "query", prompt.query),
              _rows(case, "bayes", bayes), _rows(case, "model", estimate)]
    if "basis" in prompt.task:
        basis = prompt.task["basis"][0]
        frames.append(_rows(case, "basis", basis.T))
        frames.append(_rows(case, "projection", basis @ (basis.T @ prompt.query[0])))
    if task.name == "linear":
        frames.append(_rows(case, "plugin", ESTIMATORS["linear"]["empirical_covariance"](prompt, task)))
    if "centres" in prompt.task:
        frames.append(_rows(case, "centre", prompt.task["centres"][0]))
    table = pd.concat(frames, ignore_index=True)
    table.insert(1, "model", model)
    table.insert(2, "seed", seed)
    return table


def _scatter(ax, points: pd.DataFrame, kind: str) -> None:
    mine = points[points["kind"] == kind]
    style = KIND_STYLE[kind]
    ax.scatter(mine["x"], mine["y"], mine["z"], color=style["color"], marker=style["marker"], s=style["s"],
               label=style["label"], depthshade=False, edgecolor="black" if kind != "context" else None, linewidth=0.4)


def _surface(ax, points: pd.DataFrame, case_task: str) -> None:
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


def render_fig1(table: pd.DataFrame, tasks: dict[str, str]):
    cases = list(dict.fromkeys(table["case"]))
    figure = start_figure(figsize=(5 * len(cases), 5))[0]
    figure.clf()
    for column, case in enumerate(cases, start=1):
        ax = figure.add_subplot(1, len(cases), column, projection="3d")
        points = table[table["case"] == case]
        _surface(ax, points, tasks[case])
        for kind in ("context", "target", "query", "bayes", "model"):
            _scatter(ax, points, kind)
        for kind, style in (("bayes", "--"), ("model", ":")):
            query = points[points["kind"] == "query"][["x", "y", "z"]].to_numpy()[0]
            end = points[points["kind"] == kind][["x", "y", "z"]].to_numpy()[0]
            ax.plot(*zip(query, end), color=KIND_STYLE[kind]["color"], linestyle=style, linewidth=1)
        model = points["model"].iloc[0]
        ax.set_title(f"{TASK_TITLES[tasks[case]]}: {MODEL_STYLE[model]['label']} (seed {points['seed'].iloc[0]})", fontsize=10)
        ax.set_box_aspect((1, 1, 1))
        ax.legend(fontsize=7, loc="upper left")
    figure.suptitle("Figure 1(b) — one prompt per task in n = 3: context, query, target and the two estimates")
    figure.tight_layout()
    return figure


def render_fig2(table: pd.DataFrame, case: str, shrinkage: float):
    points = table[table["case"] == case]
    figure = start_figure(figsize=(7, 6))[0]
    figure.clf()
    ax = figure.add_subplot(1, 1, 1, projection="3d")
    _surface(ax, points, "linear")
    for kind in ("context", "target", "query", "projection", "bayes", "plugin", "model"):
        _scatter(ax, points, kind)
    query, projection, bayes = (points[points["kind"] == kind][["x", "y", "z"]].to_numpy()[0] for kind in ("query", "projection", "bayes"))
    ax.plot(*zip(query, projection), color=KIND_STYLE["projection"]["color"], linestyle="--", linewidth=1)
    ax.plot(*zip(np.zeros(3), projection), color="black", linewidth=0.6)
    ax.legend(fontsize=7, loc="upper left")
    ax.set_title(f"Figure 2 — baseline estimators, linear subspace in n = 3: P x̃, the Bayes estimate {shrinkage:.3f} · P x̃ (eq. 3),\n"
                 f"the plug-in of eq. 10 and trained linear attention (seed {points['seed'].iloc[0]})", fontsize=9)
    figure.tight_layout()
    return figure
