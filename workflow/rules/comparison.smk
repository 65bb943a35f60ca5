# Named runs side by side (icdenoise.experiments.comparison): this run's leaderboard and ledgers with those of
# the runs the config's `comparison.runs` names, each read from its own folder (icdenoise.pipeline.named_runs).
# Target: comparison. The other runs are not rebuilt here: each is built with its own config first.

from icdenoise.pipeline.named_runs import compared_tables

COMPARED_RUNS = list(dict.fromkeys([RUN_NAME, *config["comparison"]["runs"]]))


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
    input=lambda wildcards: dict(
        tables=[path for _, _, path in compared_tables(COMPARED_RUNS, RUN_NAME, BASE_RUN, LEDGER_TABLES)]
    ),
    params=dict(
        tables=lambda wildcards: [
            dict(run=run, study=study)
            for run, study, _ in compared_tables(COMPARED_RUNS, RUN_NAME, BASE_RUN, LEDGER_TABLES)
        ]
    ),
    local=True,
    modules=["icdenoise.experiments.plots.comparison"],
)


rule comparison:
    """Target: this run beside the runs named in comparison.runs (figures/comparison.{parquet,md,pdf})."""
    input:
        rules.compare_runs.output,
