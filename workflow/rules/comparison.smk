# Named runs side by side (icdenoise.experiments.comparison): this run's config, leaderboard and (with
# comparison.ledgers) ledgers with those of the runs the config's `comparison.runs` names, each read from its own
# folder (icdenoise.pipeline.named_runs). Target: comparison. The other runs are not rebuilt here: each is built
# with its own config first.

from icdenoise.pipeline.named_runs import compared_in_workflow, in_run

COMPARED_RUNS = list(dict.fromkeys([RUN_NAME, *config["comparison"]["runs"]]))


job_rule(
    "compare_runs",
    "This run beside the runs its config names: their config differences, then their leaderboards and (with "
    "comparison.ledgers) ledger verdicts stacked into one table (Parquet, Markdown).",
    "../scripts/compare_runs.py",
    dict(table="<figures>/comparison.parquet", text="<figures>/comparison.md"),
    input=lambda wildcards: dict(
        tables=[path for _, _, path in compared_in_workflow(COMPARED_RUNS, RUN_NAME, BASE_RUN, compared_ledgers())],
        configs=[in_run("<results>/config.yaml", run, BASE_RUN) for run in COMPARED_RUNS if run != RUN_NAME],
    ),
    params=dict(
        tables=lambda wildcards: [
            dict(run=run, study=study)
            for run, study, _ in compared_in_workflow(COMPARED_RUNS, RUN_NAME, BASE_RUN, compared_ledgers())
        ],
        runs=[run for run in COMPARED_RUNS if run != RUN_NAME],
    ),
    local=True,
)

COMPARISON_FIGURE = figure_output(
    "<figures>/comparison.pdf",
    caption=str(WORKFLOW / "report" / "comparison.rst"),
    category="Comparison",
    labels={"study": "all", "item": "comparison"},
)
job_rule(
    "plot_comparison",
    "The comparison's figure, drawn from its table: every denoiser's ratio to Bayes per run, and each "
    "study's share of passing claims.",
    WORKFLOW / "scripts" / "plot_figure.py",
    COMPARISON_FIGURE,
    input=dict(comparison="<figures>/comparison.parquet"),
    params=dict(
        drawing="icdenoise.experiments.plots.comparison",
        settings={},
        footer=run_footer(),
        differences=run_differences(),
    ),
    local=True,
    modules=["icdenoise.experiments.plots.comparison"],
)


rule comparison:
    """Target: this run beside the runs named in comparison.runs (figures/comparison.{parquet,md,pdf})."""
    input:
        reported_targets([*rules.compare_runs.output, *rules.plot_comparison.output]),
