# Named runs side by side (icdenoise.experiments.comparison): this run's leaderboard and ledgers with those of
# the runs the config's `comparison.runs` names, each read from its own folder (icdenoise.pipeline.named_runs).
# Target: comparison. The other runs are not rebuilt here: each is built with its own config first.

from icdenoise.pipeline.config import ConfigError

COMPARED_RUNS = list(dict.fromkeys([RUN_NAME, *config["comparison"]["runs"]]))


def in_run(run, path):
    """A path written with <results> and <figures>, in run `run`'s folders; this run's stays a pattern its rules build."""
    if run == RUN_NAME:
        return path
    for folder, value in path_variables(run_root(run, BASE_CONFIG.get("run", {}).get("name"))).items():
        path = path.replace(f"<{folder}>", value)
    return path


def compared_tables(wildcards=None):
    """(run, study, path) of every leaderboard (study "") and ledger compared: all of this run's, and those
    the other runs have built; another run without a leaderboard is an error that says how to build it."""
    tables = []
    for run in COMPARED_RUNS:
        board = in_run(run, "<figures>/leaderboard.parquet")
        if run != RUN_NAME and not Path(board).is_file():
            saved = in_run(run, "<results>/config.yaml")
            raise ConfigError(
                f"comparison.runs: run {run!r} has no {board}; build it first "
                f"(snakemake leaderboard --configfile {saved if Path(saved).is_file() else '<its config file>'})"
            )
        tables.append((run, "", board))
        for study, ledger in LEDGER_TABLES.items():
            if run == RUN_NAME or Path(in_run(run, ledger)).is_file():
                tables.append((run, study, in_run(run, ledger)))
    return tables


COMPARISON_FIGURE = report(
    "<figures>/comparison.pdf",
    caption=str(WORKFLOW / "report" / "comparison.rst"),
    category="Comparison",
    labels={"study": "all", "item": "comparison"},
)
job_rule(
    "compare_runs",
    "This run beside the runs its config names: leaderboards and ledger verdicts stacked into one table "
    "(Parquet, Markdown) and one figure.",
    "../scripts/compare_runs.py",
    dict(table="<figures>/comparison.parquet", text="<figures>/comparison.md", figure=COMPARISON_FIGURE),
    input=lambda wildcards: dict(tables=[path for _, _, path in compared_tables()]),
    params=dict(tables=lambda wildcards: [dict(run=run, study=study) for run, study, _ in compared_tables()]),
    local=True,
    modules=["icdenoise.experiments.plots.comparison"],
)


rule comparison:
    """Target: this run beside the runs named in comparison.runs (figures/comparison.{parquet,md,pdf})."""
    input:
        rules.compare_runs.output,
