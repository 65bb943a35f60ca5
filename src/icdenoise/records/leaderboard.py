"""The common leaderboard: every denoiser scored on every case it applies to, on the same fresh
prompts, by `icdenoise.maths.scoring`. Rows come from the closed-form evaluations and the trained-ensemble
evaluations of each case at its own context length; a later study joins by registering its tasks,
corruptions, closed forms and models, and by configuring its cases. A case whose task is one's own without a Bayes
posterior mean has no oracle: its ratios and gaps are marked as missing (NO_BAYES)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from icdenoise.records.ledger_text import built_from, markdown_cell

BAYES_ESTIMATOR = "oracle"  # the Bayes posterior mean with the true task, registered for every task
ZERO_ESTIMATOR = "zero"  # the zero predictor
EXACT_BAYES = 1e-9  # a Bayes MSE below this fraction of the zero predictor's is exact up to rounding: a ratio to it ranks nothing
NO_BAYES = "n/a: no Bayes baseline"  # a ratio or gap of a case whose task has no Bayes posterior mean (a task of one's own)


def leaderboard_table(closed_forms: pd.DataFrame, trained: pd.DataFrame, cases: dict[str, dict]) -> pd.DataFrame:
    """One row per (case, estimator), cases in config order and estimators by MSE.

    closed_forms: rows of `evaluate_closed_forms`; trained: rows of `evaluate_denoisers` with a seed
    column; cases: each case's config block. Columns: case, task, corruption, L, estimator, kind
    (closed form | trained), n_seeds, mse (mean over seeds), sem (standard error over prompts,
    averaged over seeds), mse_min and mse_max (over seeds), n_prompts, bayes_mse (the case's oracle
    on the same prompts), ratio_to_bayes (NaN where the Bayes MSE is exact up to rounding, below EXACT_BAYES
    times the zero predictor's) and gap_to_zero = (mse − Bayes)/(zero − Bayes): 0 for Bayes, 1 for the zero
    predictor, defined whether or not Bayes is exact. A case whose task has no Bayes posterior mean (a task of
    one's own without `bayes`) has no oracle row: its bayes_mse, ratio_to_bayes and gap_to_zero are NaN.
    """
    closed = closed_forms.assign(kind="closed form", n_seeds=1, mse_min=closed_forms["mse"], mse_max=closed_forms["mse"])
    frames = [closed[["case", "L", "estimator", "kind", "n_seeds", "mse", "sem", "mse_min", "mse_max", "n_prompts"]]]
    if not trained.empty:
        grouped = trained.groupby(["case", "L", "estimator"], sort=False)
        frames.append(grouped.agg(n_seeds=("seed", "size"), mse=("mse", "mean"), sem=("sem", "mean"), mse_min=("mse", "min"),
                                  mse_max=("mse", "max"), n_prompts=("n_prompts", "first")).reset_index().assign(kind="trained"))
    table = pd.concat(frames, ignore_index=True)
    bayes = closed_forms[closed_forms["estimator"] == BAYES_ESTIMATOR].set_index("case")["mse"]
    table["bayes_mse"] = table["case"].map(bayes)
    zero = closed_forms[closed_forms["estimator"] == ZERO_ESTIMATOR].set_index("case")["mse"]
    zero_mse = table["case"].map(zero)
    exact = table["bayes_mse"] < EXACT_BAYES * zero_mse
    table["ratio_to_bayes"] = (table["mse"] / table["bayes_mse"]).where(~exact)
    table["gap_to_zero"] = (table["mse"] - table["bayes_mse"]) / (zero_mse - table["bayes_mse"])
    table.insert(1, "task", table["case"].map(lambda case: cases[case]["task"]))
    table.insert(2, "corruption", table["case"].map(lambda case: cases[case]["corruption"]["kind"]))
    order = {case: index for index, case in enumerate(cases)}
    table = table.sort_values(["case", "mse"], key=lambda column: column.map(order) if column.name == "case" else column)
    return table.reset_index(drop=True)


def markdown(table: pd.DataFrame, sources: dict) -> str:
    """One section per case: its denoisers from best to worst. A case with no Bayes baseline says so in its heading,
    and its ratios and gaps read NO_BAYES, never the "–" of an exact Bayes."""
    missing = set(table.loc[table["bayes_mse"].isna(), "case"])
    legend = ("MSE / n on the same fresh prompts per case (never the training data); trained ensembles: mean over seeds "
              "[min, max]. Ratio: MSE over the case's Bayes posterior mean (`oracle`) on the same prompts (– where Bayes is "
              "exact up to rounding). Gap: (MSE − Bayes) / (zero predictor − Bayes), 0 for Bayes and 1 for the zero predictor. "
              "Built by `snakemake leaderboard`.")
    if missing:
        legend += (f' "{NO_BAYES}" marks a case whose task (one of your own) has no Bayes posterior mean: compare its '
                   "denoisers with the zero predictor (`zero`).")
    lines = ["# Leaderboard", "", legend, "", built_from(sources), ""]
    for case, rows in table.groupby("case", sort=False):
        first = rows.iloc[0]
        lines += [f"## {case} ({first['task']} task, {first['corruption']} corruption, L = {first['L']})", ""]
        if case in missing:
            lines += ["No Bayes baseline: the task has no Bayes posterior mean; compare with the zero predictor (`zero`).", ""]
        lines += ["| estimator | kind | MSE / n | ± SEM | ratio to Bayes | gap to zero |", "|---|---|---|---|---|---|"]
        for row in rows.itertuples():
            spread = f" [{row.mse_min:.4g}, {row.mse_max:.4g}]" if row.n_seeds > 1 else ""
            ratio = f"{row.ratio_to_bayes:.3f}" if np.isfinite(row.ratio_to_bayes) else NO_BAYES if case in missing else "–"
            gap = f"{row.gap_to_zero:.3g}" if np.isfinite(row.gap_to_zero) else NO_BAYES if case in missing else "–"
            lines.append(f"| `{markdown_cell(row.estimator)}` | {row.kind} | {row.mse:.4g}{spread} | {row.sem:.2g} | {ratio} | {gap} |")
        lines.append("")
    return "\n".join(lines)
