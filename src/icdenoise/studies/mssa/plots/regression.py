"""Fig. 6: normalized test error against the number of in-context examples, one panel per task: the
trained models (mean over seeds, band min-max) and the least-squares, ridge and Lasso baselines."""

from __future__ import annotations

from icdenoise.records.figures import start_figure

MODEL_STYLE = {"mssa": {"color": "#1f77b4", "label": "AoT-MSSA (attention only)"},
               "mhsa": {"color": "#2ca02c", "label": "AoT-MHSA (attention only)"},
               "transformer": {"color": "#d62728", "label": "transformer (with MLPs)"}}
BASELINE_STYLE = {"least_squares": {"color": "black", "linestyle": "--", "label": "least squares (min-norm)"},
                  "ridge": {"color": "0.45", "linestyle": ":", "label": "ridge"},
                  "lasso": {"color": "#9467bd", "linestyle": "-.", "label": "Lasso"}}


def render(tables):
    table = tables["regression"]
    tasks = list(dict.fromkeys(table["task"]))
    figure, axes = start_figure(1, len(tasks), figsize=(4.6 * len(tasks), 3.8), layout="constrained", squeeze=False)
    for ax, task in zip(axes[0], tasks):
        mine = table[table["task"] == task]
        for model, style in MODEL_STYLE.items():
            rows = mine[mine["model"] == model]
            if rows.empty:
                continue
            stats = rows.groupby("examples")["normalized_mse"].agg(["mean", "min", "max"])
            layers = rows["layers"].iloc[0] if "layers" in rows else None
            ax.plot(stats.index, stats["mean"], color=style["color"], label=style["label"] + (f", {layers} layers" if layers else ""))
            ax.fill_between(stats.index, stats["min"], stats["max"], color=style["color"], alpha=0.15)
        for baseline, style in BASELINE_STYLE.items():
            rows = mine[mine["model"] == baseline]
            ax.plot(rows["examples"], rows["normalized_mse"], color=style["color"], linestyle=style["linestyle"], label=style["label"])
        ax.axvline(mine["d"].iloc[0], color="0.7", linewidth=0.8)
        ax.set_ylim(bottom=0, top=min(1.5, mine["normalized_mse"].max() * 1.05))
        ax.set_xlabel("in-context examples k")
        ax.set_ylabel("squared error / E[y²]")
        ax.set_title(f"{task} regression, d = {mine['d'].iloc[0]}")
        ax.legend(fontsize=7)
    scale = table["scale"].iloc[0] if "scale" in table else ""
    figure.suptitle(f"In-context regression ({scale} config; the paper: width 128, 8 heads, 32/32/16 layers, 50,000 steps)", fontsize=9)
    return figure
