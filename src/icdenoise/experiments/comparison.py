"""Named runs side by side: what differs in their settings, then their leaderboards and (when asked) their
ledgers' verdicts, stacked into one tidy table.

Rows of kind ``setting``: run, key (a dotted config key whose value differs between the runs), value (as
YAML text; "–" where the run has no such key). Rows of kind ``leaderboard``: run, case, estimator, mse (MSE/n
on the run's fresh prompts), ratio_to_bayes. Rows of kind ``claim``: run, study, claim, ours_mean (the value the
ledger measured), verdict. A run that lacks a case, an estimator or a study simply has no row for it. The
settings compared leave out `run`, `comparison` and `execution` (how jobs run, which changes no number).

The report's front page and figures use the same comparison against the paper config (`config_differences`),
the run's own changes first (those against its parent config, `parent_config`), and each study's verdict counts
(`study_verdict_counts`).
"""

from __future__ import annotations

import copy
from pathlib import Path

import pandas as pd
import yaml

from icdenoise.records.claims import VERDICTS

COLUMNS = ["run", "kind", "study", "case", "estimator", "claim", "key", "value", "mse", "ratio_to_bayes", "ours_mean", "verdict"]
SAFE_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)  # libyaml's where PyYAML has it: the same text, ~4× faster
NOT_SETTINGS = ("run", "comparison", "execution")  # top-level blocks that are not the science a run computes
MISSING = "–"


def verdicts(ledger: pd.DataFrame) -> pd.Series:
    """A ledger's verdict per claim: its own ``verdict`` column where it has one, else PASS or FAIL."""
    if "verdict" in ledger:
        return ledger["verdict"].astype(str)
    return ledger["passed"].map({True: "PASS", False: "FAIL"})


def flat_settings(config: dict) -> dict[str, str]:
    """Dotted key → value (YAML text) of every leaf of a config, the blocks of `NOT_SETTINGS` left out. A list is
    one value."""
    flat = {}

    def walk(node, prefix):
        if isinstance(node, dict) and node:
            for key, value in node.items():
                walk(value, f"{prefix}.{key}" if prefix else str(key))
        else:
            text = yaml.dump(node, Dumper=SAFE_DUMPER, default_flow_style=True, width=10**6)
            flat[prefix] = text.strip().removesuffix("...").strip()

    walk({key: value for key, value in config.items() if key not in NOT_SETTINGS}, "")
    return flat


def differing_settings(configs: dict[str, dict]) -> tuple[dict[str, dict[str, str]], list[str]]:
    """configs: run → its merged config. Each run's `flat_settings`, and the keys whose value is not the same in all
    runs, in the first run's order. An empty mapping (`{}`) that another run fills is no key of its own: the filled
    run's keys below it are the difference."""
    flat = {run: flat_settings(config) for run, config in configs.items()}
    keys = list(dict.fromkeys(key for values in flat.values() for key in values))
    prefixes = {key[:end] for key in keys for end in range(len(key)) if key[end] == "."}  # every key that has keys below

    def filled_elsewhere(key, values):
        return values <= {"{}", MISSING} and key in prefixes

    differing = []
    for key in keys:
        values = {run_values.get(key, MISSING) for run_values in flat.values()}
        if len(values) > 1 and not filled_elsewhere(key, values):
            differing.append(key)
    return flat, differing


def setting_differences(configs: dict[str, dict]) -> pd.DataFrame:
    """configs: run → its merged config. One row per (run, key) for every key whose value is not the same in all
    runs (`differing_settings`), keys in the first run's order: columns run, key, value."""
    flat, differing = differing_settings(configs)
    return pd.DataFrame([{"run": run, "key": key, "value": flat[run].get(key, MISSING)} for key in differing for run in flat],
                        columns=["run", "key", "value"])


def config_differences(config: dict, paper: dict, first=()) -> list[tuple[str, str, str]]:
    """(dotted key, the paper config's value, this run's value), as YAML text, of every setting the run's
    merged config changes, in the paper config's order (`differing_settings`), except that the keys of `first`
    come first, also in that order: the run's own changes (the keys where it differs from its parent config,
    `parent_config`), which would otherwise hide among those of the config it is merged over. The order of the
    keys in the run's own files never counts, so that a figure's footer does not change with it."""
    flat, differing = differing_settings({"paper": paper, "run": config})
    differences = [(key, flat["paper"].get(key, MISSING), flat["run"].get(key, MISSING)) for key in differing]
    own = set(first)
    return sorted(differences, key=lambda entry: entry[0] not in own)  # stable: each part keeps the paper's order


def parent_config(layers: dict[str, dict]) -> tuple[list[str], dict]:
    """The config a run is merged over, its parent. layers: the run's config sources in merge order, name → what it
    sets (config/config.yaml, each --configfile, then --config: icdenoise.pipeline.config.ConfigFiles.layers). The
    run's own layer is the last that sets a setting (a block other than NOT_SETTINGS: a file that sets only `run`,
    `comparison` or `execution` changes no number); the parent is the layers before it, merged as Snakemake merges
    them. Returns their names and the merged config; no names (and an empty config) for a run that sets nothing
    over the first layer (the paper's own run)."""
    from snakemake.utils import update_config

    names = list(layers)
    own = max((index for index, name in enumerate(names) if set(layers[name] or {}) - set(NOT_SETTINGS)), default=0)
    merged: dict = {}
    for name in names[:own]:
        update_config(merged, copy.deepcopy(layers[name] or {}))
    return names[:own], merged


def study_verdict_counts(ledgers: dict[str, Path]) -> dict[str, dict[str, int] | None]:
    """Study → claims per verdict (VERDICTS), read from its ledger's Parquet as built; None for a ledger not
    built yet."""
    counts = {}
    for study, table in ledgers.items():
        if not Path(table).is_file():
            counts[study] = None
            continue
        found = verdicts(pd.read_parquet(table)).value_counts()
        counts[study] = {verdict: int(found.get(verdict, 0)) for verdict in VERDICTS}
    return counts


def comparison_table(leaderboards: dict[str, pd.DataFrame], ledgers: list[tuple[str, str, pd.DataFrame]],
                     configs: dict[str, dict] | None = None) -> pd.DataFrame:
    """leaderboards: run → its leaderboard table; ledgers: (run, study, ledger table) triples; configs: run → its
    merged config (the setting rows)."""
    frames = [setting_differences(configs).assign(kind="setting")] if configs else []
    frames += [
        board[["case", "estimator", "mse", "ratio_to_bayes"]].assign(run=run, kind="leaderboard")
        for run, board in leaderboards.items()
    ]
    frames += [
        ledger[["claim", "ours_mean"]].assign(run=run, kind="claim", study=study, verdict=verdicts(ledger))
        for run, study, ledger in ledgers
    ]
    return pd.concat([frame for frame in frames if len(frame)], ignore_index=True).reindex(columns=COLUMNS)


def verdict_counts(table: pd.DataFrame) -> pd.DataFrame:
    """Claims per (run, study) by verdict: columns run, study, claims, and one per verdict found."""
    claims = table[table["kind"] == "claim"]
    counts = claims.groupby(["run", "study", "verdict"], sort=False).size().unstack("verdict", fill_value=0)
    counts.insert(0, "claims", counts.sum(axis=1))
    return counts.reset_index()


def _side_by_side(rows: pd.DataFrame, index: list[str], column: str, runs: list[str]) -> pd.DataFrame:
    """`column` of each run side by side, one row per `index`, in first-seen order."""
    return rows.pivot_table(index=index, columns="run", values=column, aggfunc="first", sort=False).reindex(columns=runs)


def _differs(frame: pd.DataFrame, number: bool) -> pd.Series:
    """Rows whose cells, as the table shows them (`_cell`: a number to 4 significant digits), are not all equal, so
    that 1.0000000000000002 and 1.0 are equal; a run without the row counts as a difference."""
    return frame.apply(lambda row: row.isna().any() or len({_cell(value, number) for value in row}) > 1, axis=1)


def _cell(value, number: bool) -> str:
    if pd.isna(value):
        return MISSING
    return f"{value:.4g}" if number else str(value).replace("|", "\\|")


def _table(frame: pd.DataFrame, index_names: list[str], runs: list[str], number: bool) -> list[str]:
    lines = ["| " + " | ".join(index_names) + " | " + " | ".join(f"`{run}`" for run in runs) + " |",
             "|" + "---|" * (len(index_names) + len(runs))]
    for keys, row in frame.iterrows():
        keys = keys if isinstance(keys, tuple) else (keys,)
        lines.append("| " + " | ".join(map(str, keys)) + " | " + " | ".join(_cell(row[run], number) for run in runs) + " |")
    return lines


def _folded(frame: pd.DataFrame, index_names: list[str], runs: list[str], number: bool, what: str) -> list[str]:
    """The rows that differ in a table, then the equal ones folded away (an HTML <details> block)."""
    changed = _differs(frame, number) if len(frame) else pd.Series(dtype=bool)
    lines = [f"{int(changed.sum())} of {len(frame)} {what} differ between the runs.", ""]
    if changed.any():
        lines += _table(frame[changed], index_names, runs, number) + [""]
    if len(frame) and not changed.all():
        lines += [f"<details><summary>The {int((~changed).sum())} {what} equal in every run</summary>", "",
                  *_table(frame[~changed], index_names, runs, number), "", "</details>", ""]
    return lines


def markdown(table: pd.DataFrame) -> str:
    """The comparison as Markdown, the answers first: the settings that differ key by key, the verdicts and the
    leaderboard rows that differ, each with its equal rows folded away; then the verdict counts."""
    runs = list(dict.fromkeys(table["run"]))
    lines = ["# Comparison across runs", "", f"Runs: {', '.join(f'`{run}`' for run in runs)} (the first is this run).", "",
             "## Settings that differ", ""]
    settings = table[table["kind"] == "setting"]
    if settings.empty:
        lines += ["None: the runs share every setting (how jobs ran, the execution block, is not compared).", ""]
    else:
        lines += _table(_side_by_side(settings, ["key"], "value", runs), ["setting"], runs, number=False) + [""]
    claims = table[table["kind"] == "claim"]
    if claims.empty:
        lines += ["## Claims", "", "Not compared: set `comparison.ledgers: true` to compare the ledgers' verdicts too "
                  "(that builds this run's ledgers).", ""]
    else:
        lines += ["## Verdicts", ""] + _folded(_side_by_side(claims, ["study", "claim"], "verdict", runs), ["study", "claim"],
                                              runs, number=False, what="claims' verdicts")
        lines += ["| run | study | claims | PASS | FAIL | INCONCLUSIVE | MEASURED |", "|---|---|---|---|---|---|---|"]
        for row in verdict_counts(table).itertuples(index=False):
            counts = row._asdict()
            lines.append(f"| `{row.run}` | {row.study} | {row.claims} | "
                         + " | ".join(str(counts.get(verdict, 0)) for verdict in VERDICTS) + " |")
        lines.append("")
    board = table[table["kind"] == "leaderboard"]
    lines += ["## Leaderboards: MSE over the Bayes posterior mean's, on each run's own fresh prompts", ""]
    lines += _folded(_side_by_side(board, ["case", "estimator"], "ratio_to_bayes", runs), ["case", "estimator"], runs,
                     number=True, what="leaderboard rows")
    return "\n".join(lines).rstrip() + "\n"
