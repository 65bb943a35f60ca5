# Read first: the config is validated against its schema and the studies it names are loaded before
# anything else starts; then the warm start, the paths of the shared stages and their input functions.

import os
from pathlib import Path

from snakemake.logging import logger

from icdenoise.pipeline import warmstart
from icdenoise.pipeline.codedeps import import_groups, imported_modules, track_package, use_disk_cache
from icdenoise.pipeline.config import all_runs, config_sources, validate_config
from icdenoise.pipeline.resources import machine_cores, machine_memory_mb

WORKFLOW = Path(workflow.basedir) / "workflow"
STUDIES = validate_config(  # name → icdenoise.pipeline.registry.Study, in the config's order
    config,
    WORKFLOW / "schemas",
    local_execution=workflow.local_exec,
    available_mb=machine_memory_mb() if workflow.local_exec else None,
)

STATE_DIR = Path(".snakemake") / "icdenoise"  # this package's state between runs: import cache, warm-start log
use_disk_cache(STATE_DIR / "imports.json")  # the next call parses only the modules edited since
for study in STUDIES.values():
    track_package(study.package, study.folder)  # a study outside this package: its modules are code inputs too

# A local run's jobs continue in a process that has already imported their libraries (icdenoise.pipeline.warmstart).
# It starts now, importing the modules of the shared stages and of the figures (torch, pandas and matplotlib among
# them) while Snakemake builds the DAG; `onstart` sends it the rest of the run's modules.
WARM_START = None
if workflow.is_main_process and warmstart.enabled():
    SHARED_SCRIPTS = [
        WORKFLOW / "scripts" / f"{name}.py"
        for name in ("sample_prompts", "train_ensemble", "evaluate_bayes", "plot_figure")
    ]
    WARM_START = warmstart.start_server(
        import_groups(map(imported_modules, SHARED_SCRIPTS), exclude=[warmstart.__name__]), STATE_DIR / "warmstart.log"
    )

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
    if WARM_START is not None and (not workflow.local_exec or workflow.touch):
        WARM_START.stop()
    elif WARM_START is not None:
        WARM_START.complete(import_groups(modules_in_start_order(), exclude=[warmstart.__name__]))
        if not WARM_START.announce():
            logger.warning(
                f"the warm start did not begin (see {WARM_START.log_path}): each job imports its own modules"
            )


def modules_in_start_order():
    """The modules of the jobs to run (JOB_MODULES), one list per rule, in about the order the jobs start:
    by priority (datasets first, then the longest compute jobs), then by the DAG's levels."""
    levels = workflow.dag.toposorted(set(workflow.dag.needrun_jobs()))
    jobs = sorted((-job.priority, depth, job.rule.name) for depth, level in enumerate(levels) for job in level)
    return [JOB_MODULES[name] for name in dict.fromkeys(name for *_, name in jobs) if name in JOB_MODULES]


CONFIG_SOURCES = config_sources(  # named by the ledgers and the report, in merge order
    ["config/config.yaml", *workflow.overwrite_configfiles], config, Path.cwd()
)
CASES = list(config["cases"])
MODELS = list(config["models"])
RUNS = all_runs(config, STUDIES)  # every (case, model, L) some study or the leaderboard trains


wildcard_constraints:
    case="|".join(CASES),
    model="|".join(MODELS),
    L=r"\d+",


def canonical(block):
    """The block with keys sorted, so that reordering keys in a YAML file re-runs nothing
    (Snakemake compares params by their text)."""
    if isinstance(block, dict):
        return {key: canonical(block[key]) for key in sorted(block)}
    return block


def context_length(case):
    return config["cases"][case]["L"]


def dataset_path(case, L=None):
    """The fixed dataset of a case at context length L (default: the case's own L)."""
    return f"results/datasets/{case}/L{L or context_length(case)}.parquet"


def bayes_path(case, L=None):
    """The closed-form baselines of a case on fresh prompts."""
    return f"results/bayes/{case}/L{L or context_length(case)}.parquet"


def training_path(case, model, kind, L=None):
    """kind: losses or weights. Every study and the leaderboard share these runs."""
    return f"results/train/{case}/L{L or context_length(case)}/{model}/{kind}.parquet"


def training_paths(kind, cases, models):
    return [training_path(case, model, kind) for case in cases for model in models]


def trained_scores_path(case):
    """The trained models of a case at its own L, scored on the evaluation's fresh prompts."""
    return f"results/trained_scores/{case}/L{context_length(case)}.parquet"


def models_trained_at(case, L):
    """The models with a run on this case at context length L, in config order."""
    return [model for model in MODELS if (case, model, int(L)) in RUNS]


def get_case_params(wildcards):
    """This case's block without L (L is the wildcard), so that editing another case, or this
    case's L, re-runs nothing that does not depend on it."""
    return canonical({key: value for key, value in config["cases"][wildcards.case].items() if key != "L"})


def get_training_params(wildcards):
    """The training block with this case's number of epochs in place of the per-case map."""
    training = {key: value for key, value in config["training"].items() if key != "epochs"}
    return canonical({**training, "epochs": config["training"]["epochs"][wildcards.case]})
