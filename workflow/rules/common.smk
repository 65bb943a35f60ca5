# Config validation (before any job is scheduled), output paths and the shared input/param functions.

import math
import os
import sys
from pathlib import Path

from snakemake.logging import logger

from icdenoise import warmstart
from icdenoise.cluster import placement
from icdenoise.codedeps import import_groups, imports_torch, rule_scripts, script_dependencies, use_disk_cache
from icdenoise.config import ConfigError, all_runs, built_config_problems, config_sources, load_schema, validate_config
from icdenoise.resources import job_estimate, machine_cores, machine_memory_mb

STATE_DIR = Path(".snakemake") / "icdenoise"  # this package's state between runs: import cache, warm-start log
use_disk_cache(STATE_DIR / "imports.json")  # the next call parses only the modules edited since

# A local run's jobs continue in a process that has already imported their libraries (icdenoise.warmstart).
# It starts now, importing the shared stages' modules (torch and pandas among them) as one group while
# Snakemake builds the DAG, so that the first jobs find them imported, or wait less than importing them.
RULE_SCRIPTS = rule_scripts(workflow.basedir)  # rule name → its script
WARM_START = None
if workflow.is_main_process and warmstart.enabled():
    SHARED_STAGES = [RULE_SCRIPTS[name] for name in ("sample_prompts", "train_ensemble", "evaluate_bayes")]
    SHARED_IMPORTS = [module for group in import_groups(SHARED_STAGES, exclude=[warmstart.__name__]) for module in group]
    WARM_START = warmstart.start_server([SHARED_IMPORTS], STATE_DIR / "warmstart.log")


validate_config(
    config,
    load_schema(Path(workflow.basedir) / "workflow" / "schemas"),
    local_execution=workflow.local_exec,
    available_mb=machine_memory_mb() if workflow.local_exec else None,
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
        WARM_START.preload(import_groups(scripts_in_start_order(), exclude=[warmstart.__name__]))
        if not WARM_START.announce():
            logger.warning(f"the warm start did not begin (see {WARM_START.log_path}): each job imports its own modules")


def scripts_in_start_order():
    """The scripts of the jobs to run, in about the order they start: by priority (datasets first,
    then the longest compute jobs), then by the DAG's levels."""
    levels = workflow.dag.toposorted(set(workflow.dag.needrun_jobs()))
    jobs = sorted((-job.priority, depth, job.rule.name) for depth, level in enumerate(levels) for job in level)
    return [RULE_SCRIPTS[name] for name in dict.fromkeys(name for *_, name in jobs) if name in RULE_SCRIPTS]


CONFIG_SOURCES = config_sources(  # named by the ledgers and the report, in merge order
    ["config/config.yaml", *workflow.overwrite_configfiles], config, Path.cwd()
)
REPORTED_TABLES = ["figures/claims.parquet", "figures/leaderboard.parquet"]  # built last, from the whole config
if any(argument == "--report" or argument.startswith("--report=") for argument in sys.argv):
    problems = built_config_problems(REPORTED_TABLES, CONFIG_SOURCES["merged_sha256"])
    if problems:
        raise ConfigError("the report would caption figures built from another config:\n" + "\n".join(f"  - {p}" for p in problems))

CASES = list(config["cases"])
MODELS = list(config["models"])
RUNS = all_runs(config)  # every (case, model, L) some study or the leaderboard trains
RULE_DEVICES = {}  # a study's training rule → its device setting (else training.device), filled before its rules
LEADERBOARD_STUDY_SCORES = []  # score tables a study adds to the leaderboard (columns of evaluate_denoisers; seed for trained rows)


wildcard_constraints:
    case="|".join(CASES),
    model="|".join(MODELS),
    L=r"\d+",


def code(script):
    """The package modules that a rule's script imports, directly or not (icdenoise.codedeps): as the
    rule's input `code`, editing one re-runs exactly the jobs that use it, and -n names the file."""
    return script_dependencies(Path(workflow.basedir) / "workflow" / "scripts" / script)


def job_estimator(script):
    """wildcards (or a dict of them) → the icdenoise.resources estimate of one job of the rule named after `script`."""
    job = Path(script).stem
    uses_torch = imports_torch(Path(workflow.basedir) / "workflow" / "scripts" / script)
    return lambda wildcards: job_estimate(job, dict(wildcards.items()), config, uses_torch)


def job_resources(script):
    """A rule's resources, named after its script: mem_mb and runtime (minutes) estimated from the
    config (icdenoise.resources), cpus_per_task equal to its threads, and, on SLURM, the partition,
    account and GPU the environment names (icdenoise.cluster)."""
    job, estimate = Path(script).stem, job_estimator(script)
    return dict(
        mem_mb=lambda wildcards: estimate(wildcards).mem_mb,
        runtime=lambda wildcards: estimate(wildcards).runtime_minutes,
        cpus_per_task=lambda wildcards, threads: threads,
        **placement(job, RULE_DEVICES.get(job, config["training"]["device"]), os.environ),
    )


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


def longest_first(script):
    """A compute rule's priority: 10 + its job's estimated seconds (icdenoise.resources), so that
    among the jobs ready to run the longest starts first, and the last to finish are short. In
    Figure 3 the closed forms of a case (about 5 s) then run beside the softmax trainings instead of
    after every training, where the last of them left a core idle. Only the order matters; rules
    without a size model (plots, summaries, scans) keep priority 0."""
    estimate = job_estimator(script)
    return lambda wildcards: 10 + math.ceil(estimate(wildcards).seconds)


def highest_compute_priority():
    """The highest priority of the planned trainings and closed-form evaluations."""
    training, evaluation = longest_first("train_ensemble.py"), longest_first("evaluate_bayes.py")
    priorities = [training({"case": run.case, "model": run.model, "L": run.L}) for run in RUNS]
    priorities += [evaluation({"case": run.case, "L": run.L}) for run in RUNS]
    return max(priorities, default=0)


DATASET_PRIORITY = 1 + highest_compute_priority()  # datasets first: each takes a few seconds, and trainings wait for them
