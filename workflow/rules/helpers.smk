# The helpers that define every job rule of the workflow, shared stages and studies alike, so that the
# tail each of them repeats is written once here (its code input, log, benchmark, resources, conda
# environment and script). `job_rule` defines one rule; `figure_rule`, `ledger_rule` and `score_rule` define a
# study's figures, its claims ledger and its leaderboard rows, each with one generic script.
# docs/architecture.md shows a study's rules file written with them.

import math
import os
from pathlib import Path

from snakemake.io import get_wildcard_names

from icdenoise.pipeline.cluster import placement, time_limit_warning
from icdenoise.pipeline.collected import Collected
from icdenoise.pipeline.codedeps import LEDGER_SCRIPT, code_dependencies, imported_modules, trains_in_shared_stage
from icdenoise.pipeline.config import ConfigFiles, device_keys, setting
from icdenoise.pipeline.joblog import job_files
from icdenoise.pipeline.registry import shared_and_study
from icdenoise.experiments.comparison import config_differences, parent_config
from icdenoise.pipeline.report import built_targets, difference_text, figure_blocks, study_differences
from icdenoise.records.footers import footed_caption, footer_text
from icdenoise.pipeline.resources import SHARED_SIZES, job_estimate

ENVIRONMENT = str(WORKFLOW / "envs" / "icdenoise.yaml")
SIZES = shared_and_study(SHARED_SIZES, STUDIES, "sizes")  # rule → its job-size model
DEVICES = device_keys(STUDIES)  # rule → the config key of its device setting


def rules_file_being_read():
    """The rule file Snakemake is reading now (relative to the working directory where it lies inside), or None
    once it has read them all and builds the DAG."""
    if not workflow.included_stack:
        return None
    path = Path(workflow.included_stack[-1].get_path_or_uri(secret_free=True)).resolve()
    return str(path.relative_to(Path.cwd().resolve()) if path.is_relative_to(Path.cwd().resolve()) else path)


# What the helpers collect as they define rules, for rules of other files (icdenoise.pipeline.collected): read when
# the DAG is built (input functions), so that the order of the Snakefile's includes changes no job.
JOB_MODULES = {}  # rule → the modules its jobs import (its script's, and those it names); the warm start preloads them
STUDY_TARGETS = Collected("STUDY_TARGETS", "(study, file) of every study's figures and ledger", rules_file_being_read)
REPORTED_TABLES = Collected("REPORTED_TABLES", "the tables the report captions", rules_file_being_read)
SCORE_TABLES = Collected("SCORE_TABLES", "the studies' score tables that join the leaderboard", rules_file_being_read)
LEDGER_TABLES = Collected("LEDGER_TABLES", "(study, its ledger's table), compared across runs", rules_file_being_read)
# `snakemake --cache`: the rules defined with cache=True (the shared stages, the studies' compute rules and
# score_rule's) keep their outputs in Snakemake's between-workflow cache, at $SNAKEMAKE_OUTPUT_CACHE
# (OUTPUT_CACHE, common.smk); docs/caching.md.
CACHING = workflow.workflow_settings.cache is not None
# The config this run is merged over (its parent: config/config.yaml and every config file before the run's own, the
# last that sets a setting) and the settings where the run differs from it: the run's own changes, listed first.
PARENT_FILES, PARENT_CONFIG = parent_config(ConfigFiles(CONFIG_FILES, workflow.config_settings.config).layers())
# (key, the parent's value, this run's value) of each setting the run changes over its parent
PARENT_DIFFERENCES = config_differences(config, PARENT_CONFIG) if PARENT_FILES else []
PAPER_DIFFERENCES = config_differences(  # (key, paper's value, this run's) of each changed setting, the run's own first
    config, BASE_CONFIG, first=[key for key, *_ in PARENT_DIFFERENCES]
)


def here(path):
    """`path` relative to the rules file being read (the caller's), as an absolute path."""
    return Path(workflow.current_basedir.get_path_or_uri(secret_free=True)) / path


def caption_file(caption):
    """`caption` (.rst, relative to the rules file being read) as an absolute path, refused where no such file is:
    Snakemake reads a caption only under `--report`, long after a misplaced one was written."""
    path = here(caption)
    if not path.is_file():
        raise ValueError(
            f"no report caption {path}: write it there (a caption's path is relative to the rules file that names it)"
        )
    return path


def wildcards_of(output):
    """The wildcards of a rule's output patterns, in the order they first appear."""
    patterns = map(str, output.values() if isinstance(output, dict) else [output])
    return list(
        dict.fromkeys(name for pattern in patterns for name in sorted(get_wildcard_names(pattern), key=pattern.index))
    )


def job_resources(name):
    """A rule's resources: mem_mb and runtime (minutes) from its size model (SIZES; a rule without one is
    a light job), cpus_per_task equal to its threads, and, on SLURM, the partition, account and GPU the
    environment names, and for a rule whose script saves checkpoints SLURM's warning before its time limit
    (icdenoise.pipeline.cluster)."""
    estimate = lambda wildcards: job_estimate(name, dict(wildcards.items()), SIZING_CONFIG, SIZES)  # noqa: E731
    device = setting(config, DEVICES[name]) if name in DEVICES else None
    return dict(
        mem_mb=lambda wildcards: estimate(wildcards).mem_mb,
        runtime=lambda wildcards: estimate(wildcards).runtime_minutes,
        cpus_per_task=lambda wildcards, threads: threads,
        **placement(device, os.environ),
        **time_limit_warning(JOB_MODULES.get(name, ())),
    )


def longest_first(name):
    """A compute rule's priority: 10 + its job's estimated seconds, so that among the jobs ready to run the
    longest starts first and the last to finish are short. In Figure 3 the closed forms of a case (about
    5 s) then run beside the softmax trainings instead of after every training. Only the order matters;
    rules without a size model (plots, summaries, ledgers) keep priority 0."""
    if name not in SIZES:
        return 0
    return lambda wildcards: 10 + math.ceil(job_estimate(name, dict(wildcards.items()), SIZING_CONFIG, SIZES).seconds)


def free_rule_name(name):
    """Refuse, when the workflow is read, the name `name` where a config sweep's target (`sweep_<sweep>`, sweeps.smk)
    would take a job rule's name, naming the sweep; Snakemake alone would say only that the name is used. Any other
    second definition is left to Snakemake's own error."""
    sweep = name.removeprefix("sweep_")
    if workflow.is_rule(name) and name.startswith("sweep_") and sweep in SWEEPS:
        raise ValueError(
            f"config sweeps.{sweep}: its target rule {name} is also the name of a job rule of the workflow; "
            "give the sweep another name"
        )


def job_rule(
    name,
    doc,
    script_file,
    output,
    input=None,
    params=None,
    threads=1,
    priority=None,
    local=False,
    modules=(),
    cache=False,
):
    """Define the rule `name` (a verb first) with the tail every job shares.

    Every rule's name is written literally where it is defined, so that searching for it finds its definition:
    `name` is a string literal at each call outside this file, and so is the first argument of `figure_rule`,
    `ledger_rule` and `score_rule`, each of which checks it against its naming convention (`conventional_name`).
    The only rules whose definitions do not spell their names are those the config names: `sweep_<sweep>`
    (sweeps.smk), one per entry of the config's `sweeps` block, and each study's target rule (targets.smk),
    named after the study's key in the config's `studies` block.

    doc: what its jobs compute (its docstring); script_file: its script, relative to the calling rules file;
    output: a path or a dict of named paths; input: a dict of named inputs, or a function of the wildcards
    returning one; params: a dict; threads, priority: as in a rule (priority defaults to `longest_first`);
    local: a light job that runs on the submitting machine on a cluster (plots, summaries, ledgers);
    modules: modules the script imports by name at run time (their files join the code input);
    cache: its jobs' outputs join Snakemake's between-workflow cache under `snakemake --cache` (CACHING),
    and then they have no benchmark: Snakemake refuses a benchmark on a cached rule, as a job taken from the cache
    has no timing.
    A rule that is not local needs a job-size model in its study's `sizes` (icdenoise.pipeline.resources)."""
    if not local and name not in SIZES:
        raise ValueError(
            f"rule {name} runs on a cluster node but has no job-size model; add it to its study's sizes "
            "(Study.sizes; icdenoise.pipeline.resources.light for jobs that stay small), or mark it local"
        )
    free_rule_name(name)
    script_file = here(script_file)  # (a local named `script` would hide Snakemake's own, which runs the job)
    log, benchmark = job_files(name, wildcards_of(output))
    positional = [unpack(input)] if callable(input) else []
    named = input if isinstance(input, dict) else {}
    JOB_MODULES[name] = [*imported_modules(script_file), *modules]
    if cache:  # the cache key has no wildcards and no output paths: the params name the job
        params = {**(params or {}), "wildcards": lambda wildcards: dict(wildcards.items())}
    priority = longest_first(name) if priority is None else priority
    cached = cache and CACHING
    code = code_dependencies(script_file, modules)
    defined_rule(
        name, (positional, named), code, output, log, priority, local, threads, params or {}, script_file, cached
    )
    defined = workflow.get_rule(name)
    defined.docstring = doc
    if not cached:  # Snakemake refuses a benchmark on a cached rule, and has no value that leaves the directive off
        defined.benchmark_modifier = workflow.modifier.path_modifier
        defined.benchmark = benchmark


def defined_rule(name, inputs, code, output, log, priority, local, threads, params, script_file, cached):
    """The `rule` block of a job rule (`job_rule`), in the between-workflow cache where `cached`."""
    positional, named = inputs
    outputs = output if isinstance(output, dict) else {}

    rule:
        name:
            name
        input:
            *positional,
            **named,
            code=code,
        output:
            *([] if outputs else [output]),
            **outputs,
        log:
            log,
        cache: cached
        priority: priority
        localrule: local
        conda:
            ENVIRONMENT
        threads: threads
        resources:
            **job_resources(name),
        params:
            **params,
        script:
            str(script_file)


def named_tables(*outputs):
    """Input name → path of several rules' outputs (`rules.<name>.output`): a named output keeps its name,
    an unnamed one is named after its file."""
    tables = {}
    for output in outputs:
        names = {path: name for name, path in output.items()}
        tables.update({names.get(path, Path(path).stem): path for path in output})
    return tables


def report_labels(study, item):
    """The report's labels of a study's figure or ledger: its study and its name, so a reader finds it by both."""
    return {"study": study, "item": item}


def figure_output(pdf, caption, category, labels):
    """A plot rule's outputs: the PDF (the figure one cites) and, beside it, the PNG the report shows with the
    caption `caption` (.rst), in `category`, labelled `labels`. Under --report the caption is followed by the
    run's name and every setting its rule's `differences` param lists (`run_differences`;
    icdenoise.records.footers.footed_caption)."""
    png = str(Path(pdf).with_suffix(".png"))
    caption = str(footed_caption(caption)) if REPORTING else caption
    return dict(figure=pdf, image=report(png, caption=caption, category=category, labels=labels))


def run_footer(blocks=()):
    """A figure's footer: this run's name and its settings in the config blocks `blocks` that differ from
    the paper config's (icdenoise.records.footers.footer_text)."""
    return footer_text(RUN_NAME, study_differences(PAPER_DIFFERENCES, blocks))


def run_differences(blocks=()):
    """Every setting in the config blocks `blocks` that differs from the paper config's, as `key: paper's value →
    this run's value` (icdenoise.pipeline.report.difference_text): the footer after a figure's report caption
    lists them all, where the footer drawn below it spells out the first few (`run_footer`)."""
    return [difference_text(*entry) for entry in study_differences(PAPER_DIFFERENCES, blocks)]


def conventional_name(helper, name, convention, expected):
    """Refuse, when the workflow is read, a rule name other than the one `helper`'s naming convention gives."""
    if name != expected:
        raise ValueError(
            f"{helper} gives its rule the name {convention}, here {expected!r}, not {name!r}; "
            f"write {expected!r} as its first argument"
        )


def study_being_read():
    """The registered study whose rules file Snakemake is reading now; an error naming the file where none is."""
    being_read = Path(workflow.included_stack[-1].get_path_or_uri(secret_free=True)).resolve()
    for name, study in STUDIES.items():
        if study.rules.resolve() == being_read:
            return name
    raise ValueError(f"{being_read} is no registered study's rules file: give figure_rule its study= explicitly")


def figure_rule(name, figure, doc, tables, settings=None, *, study=None, drawing=None, caption=None):
    """Define the rule `name`, which must be plot_<the parts of the path `figure` joined by _> (plot_fig3 for
    "fig3", plot_memory_zipf_n for "memory/zipf_n"): figures/<figure>.pdf and the same figure as
    figures/<figure>.png (which the report shows), drawn from `tables` (input name → paths) only by the module `drawing`'s render(tables, **settings),
    with a footer naming the run and the study's settings that differ from the paper config's (the figure's own
    sub-block first, then the shared blocks, then the rest of the study's: `figure_blocks`); `caption` is
    its report caption (.rst, relative to the calling rules file), which the report follows with the run and all
    those settings. Unless given, these follow from the path and the calling file: `study`, the study whose rules
    file calls it; `drawing`, <the study's package>.plots.<the path's last part>; `caption`,
    report/<the path's last part>.rst. The drawing module, with what it imports, is the figure's code input:
    editing it re-renders that figure and every other figure whose drawing imports it (README.md's figure table
    lists each figure's drawing modules, scripts/figure_table.py)."""
    conventional_name(
        "figure_rule", name, "plot_<figure path parts joined by _>", "plot_" + "_".join(Path(figure).parts)
    )
    study = study or study_being_read()
    figure_name = Path(figure).name
    drawing = drawing or f"{STUDIES[study].package}.plots.{figure_name}"
    caption = caption or f"report/{figure_name}.rst"
    blocks = figure_blocks(study, figure, config[study], STUDIES[study].shared_keys(config))
    outputs = figure_output(
        f"<figures>/{figure}.pdf", str(caption_file(caption)), STUDIES[study].title, report_labels(study, figure)
    )
    job_rule(
        name,
        doc,
        WORKFLOW / "scripts" / "plot_figure.py",
        outputs,
        input=tables,
        params=dict(
            drawing=drawing,
            settings=settings or {},
            footer=run_footer(blocks),
            differences=run_differences(blocks),
        ),
        local=True,
        modules=[drawing],
    )
    # as plain paths: the report's flag stays on the plot rule's output alone, so that the report shows the figure as
    # its plot job's (with that job's params, which its caption reads), not as the study target's
    STUDY_TARGETS.add(*((study, str(path)) for path in outputs.values()))


def ledger_rule(name, study, tables, output, caption, appendix=None):
    """Define the rule `name`, which must be write_<study>_ledger; it writes the study's claims ledger (its claims module's
    CLAIMS and the config block <study>.claims, each claim's definition checked against the study's own claims.lock,
    Study.own_lock) measured on `tables`
    (a dict: frame name → table), as output["table"] (Parquet), output["text"] (Markdown)
    and, beside the Markdown, the same text as an HTML page (.html), which the report shows with the
    caption `caption`. `appendix`: the keyword arguments of the claims module's markdown_appendix, if it
    has one."""
    conventional_name("ledger_rule", name, "write_<study>_ledger", f"write_{study}_ledger")
    page = str(Path(output["text"]).with_suffix(".html"))
    captioned = report(
        page,
        caption=str(caption_file(caption)),
        category=STUDIES[study].title,
        labels=report_labels(study, "claims ledger"),
    )
    # absolute, as the code inputs are: the same path wherever the working directory lies, so that a copied workflow
    # keeps its ledgers; a lock not written yet is no input: every row is then not registered
    own_lock = STUDIES[study].own_lock
    lock = [str(own_lock)] if own_lock.is_file() else []
    job_rule(
        name,
        f"The claims ledger of the {study} study: every configured claim, our value and its interval, pass, fail or "
        "inconclusive, and the commit that fixed its definition (Parquet, "
        "Markdown, and the Markdown as an HTML page for the report).",
        WORKFLOW / "scripts" / f"{LEDGER_SCRIPT}.py",
        dict(table=output["table"], text=output["text"], page=captioned),
        input=dict(tables, lock=lock),
        params=dict(
            study=study,
            title=STUDIES[study].title,
            package=STUDIES[study].package,
            claims_module=STUDIES[study].claims_module,
            claims=canonical(config[study]["claims"]),
            trains_in_shared_stage=trains_in_shared_stage(STUDIES[study], config),
            settings=canonical(STUDIES[study].claim_settings(config)),
            registered_as=run_prefix(RUN_NAME, BASE_RUN),
            appendix=appendix or {},
            config_sources=CONFIG_SOURCES,
        ),
        local=True,
        modules=[STUDIES[study].claims_module],
    )
    STUDY_TARGETS.add(*((study, path) for path in (output["table"], output["text"], page)))
    REPORTED_TABLES.add(output["table"])
    LEDGER_TABLES.add((study, output["table"]))


def score_rule(name, study, cases, denoisers, settings):
    """Define the rule `name`, which must be score_<study>_denoisers; it scores the study's own denoisers on the fresh
    evaluation prompts of each case of `cases` (one case's name, or a list of them: one job per case), scored as the leaderboard scores every
    denoiser; its rows join the leaderboard. `denoisers`: "module:function", a function of (the case's config
    block, **settings) returning name → denoiser. Call it once per study."""
    conventional_name("score_rule", name, "score_<study>_denoisers", f"score_{study}_denoisers")
    cases = [cases] if isinstance(cases, str) else list(cases)
    if not cases or len(set(cases)) != len(cases):
        raise ValueError(f"score_rule({study!r}): cases {cases} must name at least one case, each once")
    job_rule(
        name,
        f"The {study} study's denoisers on the case's fresh evaluation prompts (the leaderboard's).",
        WORKFLOW / "scripts" / "score_denoisers.py",
        f"<results>/{study}/leaderboard_scores/{{case}}.parquet",
        params=dict(
            case=get_case_params,
            length=lambda wildcards: context_length(wildcards.case),
            denoisers=denoisers,
            settings=canonical(settings),
            evaluation=canonical(config["evaluation"]),
        ),
        modules=[denoisers.split(":")[0]],
        cache=True,
    )
    SCORE_TABLES.add(*(f"<results>/{study}/leaderboard_scores/{case}.parquet" for case in cases))


def get_study_targets(study):
    """The input function of a study's target rule: its figures and ledger (STUDY_TARGETS), when the DAG is built;
    under `snakemake --report`, those built (`reported_targets`)."""
    return lambda wildcards: reported_targets([path for owner, path in STUDY_TARGETS.read() if owner == study])


def reported_targets(paths):
    """A target rule's inputs `paths`; under `snakemake --report`, those built alone
    (icdenoise.pipeline.report.built_targets). Snakemake's report shows the jobs of the targets it is given (a
    partial report) and stops at a file flagged for it that does not exist, so a target rule (each study's, all,
    leaderboard, sweeps, comparison) gives it what is built; the front page lists the rest, with the command that
    builds it."""
    return built_targets(paths, workflow.pathvars.apply) if REPORTING else list(paths)


def compared_ledgers():
    """Study → this run's ledger table (LEDGER_TABLES, when the DAG is built) where the comparison of runs compares
    ledgers (comparison.ledgers), else none."""
    return dict(LEDGER_TABLES.read()) if config["comparison"]["ledgers"] else {}
