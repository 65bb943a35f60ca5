# Read first: the config is validated against its schema and the studies it names are loaded before
# anything else starts; then the run's folders, the warm start, the paths of the shared stages and their
# input functions.

import os
import re
import sys
from pathlib import Path

from snakemake.logging import logger

from icdenoise.pipeline import warmstart
from icdenoise.pipeline.cluster import leave_warning_to_jobs
from icdenoise.pipeline.codedeps import import_groups, imported_modules, track_package, use_disk_cache
from icdenoise.pipeline.config import ConfigFiles, all_runs, config_errors_end_the_run, config_sources, validate_config
from icdenoise.pipeline.named_runs import (
    path_variables,
    run_prefix,
    run_root,
    save_config,
    saved_config_path,
    unnamed_changes,
)
from icdenoise.pipeline.registry import Run
from icdenoise.pipeline.resources import machine_cores, machine_memory_mb
from icdenoise.pipeline.scheduling import drop_default_rate_limit
from icdenoise.pipeline.sweeps import (
    bayes_source,
    configured_training,
    shared_points,
    sweep_key,
    sweep_points,
    with_study_sweeps,
    with_sweep_cases,
)
from icdenoise.pipeline.user_models import is_user_class, module_file
from icdenoise.pipeline.user_tasks import task_module_files, task_notices

WORKFLOW = Path(workflow.basedir) / "workflow"
CONFIG_FILES = ["config/config.yaml", *workflow.overwrite_configfiles]  # merged in this order, then --config
with config_errors_end_the_run():  # every problem, each under the file that sets its key; no traceback
    STUDIES = validate_config(  # name → icdenoise.pipeline.registry.Study, in the config's order
        config,
        WORKFLOW / "schemas",
        local_execution=workflow.local_exec,
        available_mb=machine_memory_mb() if workflow.local_exec else None,
        sources=ConfigFiles(CONFIG_FILES, workflow.config_settings.config),
    )

# This run's folders: <results>, <figures>, <logs> and <benchmarks> in every rule's paths (pipeline.named_runs).
RUN_NAME = config["run"]["name"]
BASE_RUN = BASE_CONFIG.get("run", {}).get("name")  # the run that writes at the top of the working directory
RUN_ROOT = run_root(RUN_NAME, BASE_RUN)


pathvars:
    **path_variables(RUN_ROOT),


if workflow.is_main_process:
    for notice in task_notices(config):  # a task of one's own without a Bayes posterior mean: what the leaderboard does
        logger.warning(notice)

if workflow.is_main_process and unnamed_changes(config, BASE_CONFIG):
    logger.warning(
        f"this config changes {', '.join(unnamed_changes(config, BASE_CONFIG))} of config/config.yaml but keeps its "
        f"run name {RUN_NAME!r}, so it writes over that run's results; give it its own run.name to build it under runs/"
    )

STATE_DIR = Path(".snakemake") / "icdenoise"  # this package's state between runs: import cache, warm-start log
use_disk_cache(STATE_DIR / "imports.json")  # the next call parses only the modules edited since
for study in STUDIES.values():
    track_package(study.package, study.folder)  # a study outside this package: its modules are code inputs too

# `snakemake --report`: the report's own files, its front page (targets.smk) and its figures' captions (helpers.smk),
# are written while the rules are read, and only then.
REPORTING = any(argument == "--report" or argument.startswith("--report=") for argument in sys.argv)

# `snakemake --cache` keeps the tables of the rules defined with cache=True (helpers.smk: the shared stages and
# the studies' compute rules) in Snakemake's between-workflow cache, named by a hash of
# each job's script, params, code files and upstream jobs, and links a run's table to an equal job's instead
# of running it (docs/caching.md). Its folder: $SNAKEMAKE_OUTPUT_CACHE, by default this one (absolute, as
# the links need).
OUTPUT_CACHE = Path(os.environ.setdefault("SNAKEMAKE_OUTPUT_CACHE", str((STATE_DIR / "output-cache").resolve())))
if workflow.workflow_settings.cache is not None:
    OUTPUT_CACHE.mkdir(parents=True, exist_ok=True)

# A local run's jobs continue in a process that has already imported their libraries (icdenoise.pipeline.warmstart).
# It starts now, importing the modules of the shared stages and of the figures (torch, pandas and matplotlib among
# them) while Snakemake builds the DAG; `onstart` sends it the rest of the run's modules. A dry run, which runs no job,
# starts none. execution.warm_start: false, or ICDENOISE_WARMSTART=0, runs every job in a fresh interpreter instead.
WARM_START = None
DRY_RUN = bool(workflow.output_settings and workflow.output_settings.dryrun)  # `snakemake -n`, known while parsing
if workflow.is_main_process and not DRY_RUN and config["execution"]["warm_start"] and warmstart.enabled():
    SHARED_SCRIPTS = [
        WORKFLOW / "scripts" / f"{name}.py"
        for name in ("sample_prompts", "train_ensemble", "evaluate_bayes", "plot_figure")
    ]
    WARM_START = warmstart.start_server(
        import_groups(map(imported_modules, SHARED_SCRIPTS), exclude=[warmstart.__name__]), STATE_DIR / "warmstart.log"
    )

# In a SLURM job, SLURM's warning before the time limit (SIGUSR1) passes over Snakemake to the job's script, which
# saves and stops (icdenoise.pipeline.cluster.leave_warning_to_jobs; docs/cluster.md).
leave_warning_to_jobs(os.environ)

MACHINE_CORES = machine_cores()
if workflow.local_exec and (workflow._cores or 0) > MACHINE_CORES:
    # -j N is the number of cores locally: never run more compute threads than this machine has.
    # On a cluster (non-local executors) -j keeps meaning the number of jobs in flight.
    logger.warning(
        f"--cores/-j {workflow._cores} is more than the {MACHINE_CORES} cores this machine has: "
        f"running jobs whose threads add up to at most {MACHINE_CORES} at a time"
    )
    workflow.register_resource("_cores", MACHINE_CORES)


onstart:
    drop_default_rate_limit(workflow)  # wake the scheduler once per finished job (scheduling.py)
    if not workflow.touch:
        save_config(config, saved_config_path(RUN_ROOT))
    if WARM_START is not None and (not workflow.local_exec or workflow.touch):
        WARM_START.stop()
    elif WARM_START is not None:
        WARM_START.complete(import_groups(modules_in_start_order(), exclude=[warmstart.__name__]))
        for server in [WARM_START, *map(WARM_START.companion, other_thread_counts())]:
            if not server.announce():
                logger.warning(
                    f"the warm start of {server.threads}-thread jobs did not begin (see {server.log_path}): "
                    "each of them imports its own modules"
                )


def other_thread_counts():
    """The thread counts other than the first server's of the jobs to run, each as Snakemake runs it (at most the
    cores it was given): a server each (warmstart.Server.companion)."""
    counts = {job.threads for job in workflow.dag.needrun_jobs() if not job.is_group()}
    return sorted(counts - {warmstart.SERVER_THREADS})


def modules_in_start_order():
    """The modules of the jobs to run (JOB_MODULES), one list per rule, in about the order the jobs start:
    by priority (datasets first, then the longest compute jobs), then by the DAG's levels."""
    levels = workflow.dag.toposorted(set(workflow.dag.needrun_jobs()))
    jobs = sorted((-job.priority, depth, job.rule.name) for depth, level in enumerate(levels) for job in level)
    return [JOB_MODULES[name] for name in dict.fromkeys(name for *_, name in jobs) if name in JOB_MODULES]


# The run's name and its config files, in merge order: named by the ledgers and the report.
CONFIG_SOURCES = config_sources(CONFIG_FILES, config, Path.cwd())
CASES = list(config["cases"])  # the configured cases, in config order
# every sweep: the config's, and those the studies declare in their own blocks (icdenoise.pipeline.sweeps)
SWEEPS = with_study_sweeps(config, STUDIES).get("sweeps", {})  # name → its block
# derived case → its sweep point (icdenoise.pipeline.sweeps): trained like a configured case (unless SHARED)
POINTS = sweep_points({**config, "sweeps": SWEEPS})
MODELS = list(config["models"])
CONFIGURED_RUNS = all_runs(config, STUDIES)  # every (case, model, L) some study or the leaderboard trains
# sweep point → the configured case whose tables it reads: a point with exactly that case's settings, on runs
# the config trains anyway, is not trained again under its own name
SHARED = shared_points(config, POINTS, CONFIGURED_RUNS)
RUNS = CONFIGURED_RUNS | {  # and the runs of every other sweep point
    Run(name, model, point.case["L"]) for name, point in POINTS.items() if name not in SHARED for model in point.models
}
SIZING_CONFIG = with_sweep_cases(config, POINTS)  # what the job-size models read: the derived cases too


wildcard_constraints:
    case="|".join(map(re.escape, [*CASES, *POINTS])),
    model="|".join(MODELS),
    L=r"\d+",


def canonical(block):
    """The block with keys sorted, so that reordering keys in a YAML file re-runs nothing
    (Snakemake compares params by their text)."""
    if isinstance(block, dict):
        return {key: canonical(block[key]) for key in sorted(block)}
    return block


def case_block(case):
    """A configured case's block, or a sweep point's derived one."""
    return POINTS[case].case if case in POINTS else config["cases"][case]


def context_length(case):
    return case_block(case)["L"]


def dataset_path(case, L=None):
    """The fixed dataset of a case at context length L (default: the case's own L)."""
    return f"<results>/datasets/{case}/L{L or context_length(case)}.parquet"


def bayes_path(case, L=None):
    """The closed-form baselines of a case on fresh prompts."""
    return f"<results>/bayes/{case}/L{L or context_length(case)}.parquet"


def training_path(case, model, kind, L=None):
    """kind: losses or weights. Every study and the leaderboard share these runs."""
    return f"<results>/train/{case}/L{L or context_length(case)}/{model}/{kind}.parquet"


def training_paths(kind, cases, models):
    return [training_path(case, model, kind) for case in cases for model in models]


def trained_scores_path(case):
    """The trained models of a case at its own L, scored on the evaluation's fresh prompts."""
    return f"<results>/trained_scores/{case}/L{context_length(case)}.parquet"


def models_trained_at(case, L):
    """The models with a run on this case at context length L, in config order."""
    return [model for model in MODELS if (case, model, int(L)) in RUNS]


def user_model_files(models):
    """The module files of the models among `models` that are a user's own class (module.path:ClassName):
    code inputs of the jobs that train or score them, so that editing the class re-runs exactly those."""
    architectures = {config["models"][model]["architecture"] for model in models}
    files = (module_file(architecture) for architecture in architectures if is_user_class(architecture))
    return sorted(filter(None, files))


def user_task_files(wildcards):
    """The module file of the case's task where it is one's own (module.path:ClassName): a code input of the jobs
    that sample or score the case, so that editing the class re-runs exactly those; none for a registered task."""
    return task_module_files([case_block(wildcards.case)])


def get_case_params(wildcards):
    """This case's block without L (L is the wildcard), so that editing another case, or this
    case's L, re-runs nothing that does not depend on it."""
    return canonical({key: value for key, value in case_block(wildcards.case).items() if key != "L"})


def get_dataset_params(wildcards):
    """The dataset block; a sweep point's own, with its dataset keys set."""
    return canonical(POINTS[wildcards.case].dataset if wildcards.case in POINTS else config["dataset"])


def get_training_params(wildcards):
    """The training block with this case's number of epochs in place of the per-case map (a sweep point's
    own block, with its seeds and training keys, and `on_divergence: record`: Point.training_params)."""
    if wildcards.case in POINTS:
        return canonical(POINTS[wildcards.case].training_params)
    return canonical(configured_training(config, wildcards.case))


def get_model_params(wildcards):
    """The model's block; at a sweep point, with the point's model keys set."""
    if wildcards.case in POINTS:
        return canonical(POINTS[wildcards.case].models[wildcards.model])
    return canonical(config["models"][wildcards.model])


def sweep_points_of(sweep):
    """The points of a sweep, on every base case, in the config's order."""
    return [point for point in POINTS.values() if point.sweep == sweep]


def source_case(point):
    """The case whose tables a sweep point reads: its configured base case where it shares that case's
    jobs (SHARED), else the point's own derived case."""
    return SHARED.get(point.name, point.name)


def sweep_inputs(wildcards):
    """The closed forms, the trained models' scores and their weights at every point of the sweep, read
    from each point's source case; each table once, however many points read it."""
    points = sweep_points_of(wildcards.sweep)
    return dict(
        bayes=list(dict.fromkeys(bayes_path(bayes_source(config, point, SHARED)) for point in points)),
        scores=list(dict.fromkeys(trained_scores_path(source_case(point)) for point in points)),
        weights=list(
            dict.fromkeys(
                training_path(source_case(point), model, "weights") for point in points for model in point.models
            )
        ),
    )


def sweep_point_params(wildcards):
    """Each point's derived case, the case whose tables it reads (source), base case, swept values, case
    block and model blocks."""
    return [
        canonical(
            dict(
                case=point.name,
                source=source_case(point),
                bayes_source=bayes_source(config, point, SHARED),
                base=point.base,
                values=point.values,
                block=point.case,
                models=point.models,
            )
        )
        for point in sweep_points_of(wildcards.sweep)
    ]
