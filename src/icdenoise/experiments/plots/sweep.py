"""A sweep's figure, from its tidy table (icdenoise.experiments.sweep_table): one column per base case;
rows MSE/n with the Bayes line, the ratio to Bayes, and the learned α, β and γ = α·β with the theory's
lines where it predicts them, each against the swept value. A point whose training diverged (status other
than `trained`) has no value: it is drawn as a cross at the top of each panel, in its model's colour, with
the step of the divergence in the first row."""

from __future__ import annotations

import pandas as pd
from matplotlib.ticker import LogLocator, NullFormatter, NullLocator, ScalarFormatter

from icdenoise.records.figures import BAYES_COLOR, model_style, start_figure

ROWS = [
    ("mse", "MSE / n (fresh prompts)", "bayes_mse", "Bayes posterior mean"),
    ("ratio_to_bayes", "MSE / Bayes MSE", None, None),
    ("alpha", "learned α (mean diag W_PV)", None, None),
    ("beta", "learned β (mean diag W_KQ)", "beta_theory", "theory: β = 1/σ_z²"),
    ("gamma", "γ = α·β", "gamma_theory", "theory: γ* = 1/(σ0²+σ_z²)"),
]


def _positions(values: pd.Series) -> tuple[pd.Series, list | None]:
    """Numeric x positions of the swept values, and the category labels if they are not numbers."""
    numeric = pd.to_numeric(values, errors="coerce")
    if numeric.notna().all():
        return numeric, None
    labels = list(dict.fromkeys(map(str, values)))
    return values.map(lambda value: labels.index(str(value))), labels


def _wide(values: pd.Series) -> bool:
    """Positive values spanning a factor of 8 or more: drawn on a log scale."""
    return len(values) > 0 and (values > 0).all() and values.max() / values.min() >= 8


def _summary(rows: pd.DataFrame, column: str, spread: str | None) -> pd.DataFrame:
    """Mean and standard deviation at each x: over the spread key's values (each first averaged over the
    seeds), or over the seeds when there is no spread key; NaN at an x where a row has none (a diverged
    training), never a mean of the rest."""
    missing = rows[column].isna().groupby(rows["x"]).any()
    if spread is not None:
        rows = rows.groupby(["x", spread], sort=True)[column].mean().reset_index()
    summary = rows.groupby("x", sort=True)[column].agg(["mean", "std", "size"])
    summary.loc[missing[missing].index, ["mean", "std"]] = float("nan")
    return summary


def _mark_diverged(ax, lines: pd.DataFrame, style: dict, label: str, first_row: bool) -> None:
    """A cross at the top of the panel at each x where a training of `lines` diverged; in the first row, the
    step(s) of the divergence beside it."""
    diverged = lines[lines["status"] != "trained"]
    for x, rows in diverged.groupby("x", sort=True):
        ax.plot([x], [0.93], transform=ax.get_xaxis_transform(), marker="x", linestyle="none", color=style["color"],
                markersize=7, markeredgewidth=1.5, clip_on=False, label=f"{label}: diverged in training")
        label = None
        if first_row:
            steps = ", ".join(str(step) for step in sorted(rows["divergence_step"].dropna().unique()))
            ax.annotate(f"diverged\nstep {steps}", (x, 0.93), xycoords=ax.get_xaxis_transform(), xytext=(0, -5),
                        textcoords="offset points", ha="center", va="top", fontsize=6, color=style["color"])


def render(tables: dict[str, pd.DataFrame], name: str, keys: list[str], spread: str | None = None):
    """tables: {"sweep": the tidy table}; keys: the sweep's keys, the first drawn along the axis, the others
    (but `spread`) as separate lines; spread: the key whose values give the error bars (default: the
    training seeds)."""
    table = tables["sweep"].copy()
    x = keys[0] if keys[0] != spread else keys[1]
    table["x"], labels = _positions(table[x])
    others = [key for key in keys if key not in (x, spread)]
    bases = list(dict.fromkeys(table["base"]))
    rows = [row for index, row in enumerate(ROWS) if index == 0 or table[row[0]].notna().any()]
    figure, axes = start_figure(len(rows), len(bases), figsize=(max(3.6 * len(bases), 5.2), 2.3 * len(rows)), squeeze=False,
                                sharex="col")
    over = f"{spread} values" if spread else "training seeds"
    for column_index, base in enumerate(bases):
        of_base = table[table["base"] == base]
        for row_index, (column, label, reference, reference_label) in enumerate(rows):
            ax = axes[row_index, column_index]
            for (model, *other), lines in of_base.groupby(["model", *others], sort=False):
                style = model_style(model)
                suffix = "".join(f", {key} = {value}" for key, value in zip(others, other))
                if row_index == 0 or lines[column].notna().any():  # a model without this quantity: in the first row only
                    _mark_diverged(ax, lines, style, f"{style['label']}{suffix}", row_index == 0)
                summary = _summary(lines, column, spread)
                if summary["mean"].isna().all():
                    continue
                ax.errorbar(summary.index, summary["mean"], yerr=summary["std"].fillna(0.0), marker=style["marker"],
                            color=style["color"], capsize=3, markersize=4, label=f"{style['label']}{suffix}")
            if reference is not None and of_base[reference].notna().any():
                line = of_base.groupby("x", sort=True)[reference].mean()
                ax.plot(line.index, line, color=BAYES_COLOR, linestyle="--", label=reference_label)
            ax.set_ylabel(label)
            if row_index == 0:
                ax.set_title(f"{base}", fontsize=9)
            if row_index == len(rows) - 1:
                ax.set_xlabel(x)
            if _wide(table["x"]):
                ax.set_xscale("log")
            ticks = sorted(set(table["x"]))
            ax.set_xticks(ticks, labels if labels is not None else [f"{tick:g}" for tick in ticks])
            ax.xaxis.set_minor_locator(NullLocator())
            drawn = pd.concat([of_base[column], of_base[reference]]) if reference is not None else of_base[column]
            if _wide(drawn.dropna()):
                ax.set_yscale("log")
                ax.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
                ax.yaxis.set_major_formatter(ScalarFormatter())
                ax.yaxis.set_minor_formatter(NullFormatter())
            if column_index == 0:
                ax.legend(fontsize=6.5)
    seeds = table["seed"].nunique()
    diverged = "\n× : training diverged, no trained model and no value" if (table["status"] != "trained").any() else ""
    figure.suptitle(f"Sweep {name}: against {x}\nmean ± s.d. over {over}; {seeds} training seeds per point{diverged}", fontsize=10)
    figure.tight_layout()
    return figure

