# Read last: each study's target rule (its figures and its ledger, named after the study), and the
# report's check that every table it captions was built from the config given now, and its front page
# (each study's verdicts, what is not built yet, and the settings that differ from the run's parent config and
# from the paper's).

from icdenoise.pipeline.config import ConfigError, built_config_problems, config_errors_end_the_run
from icdenoise.experiments.comparison import study_verdict_counts
from icdenoise.pipeline.named_runs import snakemake_command
from icdenoise.pipeline.report import (
    Parent,
    build_command,
    ledger_summaries,
    not_built_items,
    write_front_page,
)

for study in STUDIES:

    rule:
        name:
            study
        input:
            get_study_targets(study),

    workflow.get_rule(study).docstring = f"Target: every figure of the {study} study and its claims ledger."


if REPORTING:
    # read now, as the report's front page is written while the rules are read: a rule file included below this one
    # that adds to them is refused, naming the fix (icdenoise.pipeline.collected)
    REPORTED = [workflow.pathvars.apply(table) for table in REPORTED_TABLES.read_now()]  # <results>/… → this run's path
    problems = built_config_problems(REPORTED, CONFIG_SOURCES["merged_sha256"])
    if problems:
        with config_errors_end_the_run():
            raise ConfigError(
                "the report would caption tables built from another config:\n" + "\n".join(f"  - {p}" for p in problems)
            )

    LEDGERS = {study: workflow.pathvars.apply(table) for study, table in LEDGER_TABLES.read_now()}

    def build(target):
        """The command that builds `target` in this run (icdenoise.pipeline.report.build_command)."""
        return build_command(snakemake_command(), target, CONFIG_FILES[1:], workflow.config_settings.config)

    # what the report cannot show yet (its target rules give it the built targets alone: reported_targets), and the
    # command that builds each part
    TARGETS = [(study, workflow.pathvars.apply(path)) for study, path in STUDY_TARGETS.read_now()]
    PARTS = [(study, [path for owner, path in TARGETS if owner == study]) for study in STUDIES]
    MISSING = [
        (part, items, build(part))
        for part, paths in [*PARTS, ("leaderboard", [str(path) for path in rules.build_leaderboard.output])]
        for items in [not_built_items(paths, folder=workflow.pathvars.apply("<figures>"))]
        if items
    ]

    FRONT_PAGE = write_front_page(
        STUDIES,
        CONFIG_SOURCES,
        REPORTED,
        study_verdict_counts(LEDGERS),
        PAPER_DIFFERENCES,
        summaries=ledger_summaries(LEDGERS),
        parent=Parent(PARENT_FILES, PARENT_DIFFERENCES),
        missing=MISSING,
        everything=build("all"),
    )

    report: str(FRONT_PAGE)
