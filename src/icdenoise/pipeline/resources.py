"""What each job asks a scheduler for: peak memory and wall time, estimated from the config alone.

Two uses:
- before the first job, refuse a config whose largest job cannot fit in this machine's memory
  (`config.memory_problems`);
- every rule's ``resources:`` (``mem_mb``, ``runtime`` in minutes), which SLURM receives as
  ``--mem`` and ``--time`` through the cluster profile.

An estimate is the arrays a job holds at its peak, or the work it does, times a coefficient
calibrated on the paper config's ``benchmark:`` files (max RSS and wall seconds, measured on a
2-core AMD EPYC; `scripts/calibrate_resources.py` re-measures them and `tests/data/paper_benchmarks.tsv`
keeps them). A unit test holds every raw estimate at or above its measurement. The request then adds
headroom: ``MEMORY_HEADROOM`` on memory, ``RUNTIME_HEADROOM`` and a floor on time, because cluster
nodes are up to twice slower than the calibration machine and share their memory bandwidth.
`docs/cluster.md` gives the measured/estimated ratios.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from icdenoise.maths.architectures import DENOISES

MB = 2**20
INTERPRETER_MB = 250  # python, numpy, pandas, pyarrow (measured 170-250 MB for the lightest jobs)
TORCH_MB = 350  # importing torch (measured: training jobs idle at about 450-550 MB)
ANALYSIS_MB = 200  # a light job's tables, scipy and matplotlib (measured 130-390 MB for those without torch)
COPIES = 3  # arrays held twice or three times at the peak: sampled list and stacked array, arrow and numpy

STARTUP_SECONDS = 5.0  # interpreter, imports and reading inputs (measured 0.6-2.7 s for the lightest jobs)
TORCH_STARTUP_SECONDS = 5.0  # importing torch and building a model (training jobs: 4-5 s at the smallest sizes)
LIGHT_JOB_SECONDS = 30.0  # summaries, plots, scans and the ledger: measured 0.7-6.3 s, nearly size-free

MEMORY_HEADROOM = 1.5  # requested mem_mb = 1.5 × the estimate (estimates already ≥ 1.1 × the measured peaks)
RUNTIME_HEADROOM = 3.0  # requested runtime = 3 × the estimate: a node up to 2× slower, 1.5× for contention
RUNTIME_FLOOR_MINUTES = 2  # a cold start on a busy shared filesystem can take a minute by itself

# Seconds per unit of `work_per_prompt` × seeds × epochs × prompts, the upper envelope of the paper
# config's training jobs of each architecture.
TRAINING_SECONDS_PER_WORK = {
    "linear": 1.5e-9,
    "softmax": 3.2e-9,
    "stacked_self_attention": 2.0e-8,  # the smoke config's run: the paper config trains none
    "two_stage_attention": 4.0e-8,  # the all-token study's paper-config run
    "mssa": 2.0e-8,  # not calibrated (no configured run trains it): stacked self-attention's value
}
TRAINING_SECONDS_PER_STEP = 2e-3  # Python and autograd overhead of one optimiser step, whatever its size
SAMPLING_SECONDS_PER_VALUE = 2.0e-8  # sample_prompts, per float of the dataset
EVALUATION_SECONDS_PER_VALUE = 1.0e-7  # evaluate_bayes and evaluate_trained, per float of the fresh prompts
REPEATED_SECONDS_PER_VALUE = 1.0e-8  # per float of task parameters repeated for a closed form applied token by token
# (measured about 7e-9 on the 2-core EPYC: the low-rank mixture's bases, repeated for its 101 tokens)


@dataclass(frozen=True)
class JobEstimate:
    """A job's raw estimates: peak memory (MB) and wall time (seconds) on the calibration machine."""

    job: str
    megabytes: float
    seconds: float

    @property
    def mem_mb(self) -> int:
        """The memory request, with headroom."""
        return math.ceil(MEMORY_HEADROOM * self.megabytes)

    @property
    def runtime_minutes(self) -> int:
        """The time request, with headroom and a floor."""
        return max(RUNTIME_FLOOR_MINUTES, math.ceil(RUNTIME_HEADROOM * self.seconds / 60))


SizeModel = Callable[[dict, dict], "JobEstimate"]
"""(a job's wildcards, the config) → its estimate: a rule's job-size model."""


def float_arrays(count: float, bytes_per_value: int = 8) -> float:
    return count * bytes_per_value / MB


def sized_as(model: dict) -> dict:
    """The block a model is sized by: its own for a registered architecture; for a user's class
    (``module.path:ClassName``, docs/experiments.md), `layers` (default 1) softmax self-attention layers over
    all tokens, the costliest registered kind per layer."""
    if model["architecture"] in TRAINING_SECONDS_PER_WORK:
        return model
    return {"architecture": "stacked_self_attention", "layers": model.get("layers", 1)}


def activations_per_prompt(model: dict, length: int, n: int) -> int:
    """Values a model's forward pass holds per prompt (eqs. 11-12: one score per context token and the
    n-vector they weight; stacked self-attention: every layer's (L+1)² scores and (L+1) × n tokens;
    two-stage attention: three such arrays per layer and for Stage 2)."""
    if model["architecture"] == "two_stage_attention":  # distances, their squares and the softmax, per layer and Stage 2
        return 3 * (model["layers"] + 1) * (length + 1) * (length + 1 + n)
    if model["architecture"] == "stacked_self_attention":
        return model["layers"] * (length + 1) * (length + 1 + n)
    return length * (n + 1)


def work_per_prompt(model: dict, length: int, n: int) -> int:
    """Multiply-adds of one prompt's forward pass, up to a constant per architecture: linear attention
    reads the n × n context second moment (eq. 11), softmax attention scores L tokens of n
    coordinates (eq. 12), stacked self-attention scores (L+1)² token pairs per layer."""
    architecture = model["architecture"]
    if architecture == "linear":
        return n * n
    if architecture == "softmax":
        return length * n
    return model["layers"] * (length + 1) ** 2 * n


def sample_prompts(case: dict, length: int, dataset: dict) -> JobEstimate:
    tokens = dataset["n_prompts"] * (length + 1) * case["n"]
    megabytes = INTERPRETER_MB + COPIES * float_arrays(tokens) + float_arrays(tokens, 4)
    seconds = STARTUP_SECONDS + SAMPLING_SECONDS_PER_VALUE * tokens
    return JobEstimate(f"sample_prompts (case {case['name']}, L = {length})", megabytes, seconds)


def train_ensemble(case: dict, model_name: str, model: dict, length: int, dataset: dict, training: dict) -> JobEstimate:
    """The dataset (float32, arrow and numpy), every seed's minibatch with its autograd intermediates,
    and a full-split recording: one score per (seed, prompt, token). Time: a fixed cost per optimiser
    step, plus every epoch passing each prompt once through each seed's model (the recordings pass
    the test prompts as well)."""
    n, seeds, epochs = case["n"], len(training["seeds"]), training["epochs"][case["name"]]
    model = sized_as(model)
    tokens = dataset["n_prompts"] * (length + 1) * n
    activations = activations_per_prompt(model, length, n)
    batch = seeds * training["batch_size"] * activations
    recording = seeds * dataset["n_prompts"] * length
    arrays = COPIES * float_arrays(tokens, 4) + 4 * float_arrays(batch, 4) + 3 * float_arrays(recording, 4)
    work = seeds * epochs * dataset["n_prompts"] * work_per_prompt(model, length, n)
    steps = epochs * math.ceil(dataset["n_train"] / training["batch_size"])
    seconds = (STARTUP_SECONDS + TORCH_STARTUP_SECONDS + TRAINING_SECONDS_PER_STEP * steps
               + TRAINING_SECONDS_PER_WORK[model["architecture"]] * work)
    return JobEstimate(f"train_ensemble (case {case['name']}, L = {length}, model {model_name})",
                       INTERPRETER_MB + TORCH_MB + arrays, seconds)


def task_values(case: dict) -> int:
    """Values of one prompt's task parameters (icdenoise.maths.tasks): a subspace's basis, centres, or bases."""
    task, n = case["task"], case["n"]
    if task == "linear":
        return n * case["d"]
    if task == "sphere":
        return n * (case["d"] + 1)
    if task == "low_rank_mixture":
        return case["K"] * n * case["p"]
    return len(case.get("centres", [])) * n or case.get("K", 0) * n  # mixtures: their centres


def evaluate(case: dict, length: int, evaluation: dict, chunk_size: int) -> JobEstimate:
    """One chunk of fresh prompts in float64, its untransformed copy, and estimator temporaries as large
    as the context (second moments, k-means distances); with a corruption of every token, a closed form
    that reads only the query sees each of the L + 1 tokens as a prompt of its own, with the prompt's task
    parameters repeated (icdenoise.maths.estimators: 3.6 GB measured for the low-rank mixture's bases at
    L = 100, chunk 1000). Time: every fresh prompt once, and every repeated value. chunk_size:
    execution.evaluation.chunk_size."""
    width = (length + 1) * max(case["n"], case.get("K", 0))
    repeated = (length + 1) * task_values(case) if case["corruption"]["kind"] != "query" else 0
    chunk = min(chunk_size, evaluation["n_prompts"])
    seconds = (STARTUP_SECONDS + TORCH_STARTUP_SECONDS + EVALUATION_SECONDS_PER_VALUE * evaluation["n_prompts"] * width
               + REPEATED_SECONDS_PER_VALUE * evaluation["n_prompts"] * repeated)
    return JobEstimate(f"evaluate_bayes and evaluate_trained (case {case['name']}, L = {length})",
                       INTERPRETER_MB + TORCH_MB + 6 * float_arrays(chunk * width) + float_arrays(chunk * repeated), seconds)


def evaluate_trained(case: dict, length: int, config: dict) -> JobEstimate:
    """`evaluate`, plus a forward pass of every seed of each configured model that can denoise the case on
    every fresh prompt (bounded by the training coefficient, which counts a backward pass too), and the
    models' temporaries."""
    base = evaluate(case, length, config["evaluation"], config["execution"]["evaluation"]["chunk_size"])
    seeds, prompts = len(config["training"]["seeds"]), config["evaluation"]["n_prompts"]
    models = [sized_as(model) for model in config["models"].values()
              if case["corruption"]["kind"] in DENOISES.get(model["architecture"], {case["corruption"]["kind"]})]
    forward = sum(TRAINING_SECONDS_PER_WORK[model["architecture"]] * seeds * prompts * work_per_prompt(model, length, case["n"])
                  for model in models)
    return JobEstimate(f"evaluate_trained (case {case['name']}, L = {length})", base.megabytes + ANALYSIS_MB, base.seconds + forward)


def light_job(rule: str) -> JobEstimate:
    """Summaries, evaluations of a few prompts, scans, plots and ledgers: their inputs are the small
    tables above, so their footprint is an interpreter's that has imported torch (whether or not the
    job does: no job's estimate depends on its imports) and their time is start-up."""
    return JobEstimate(rule, INTERPRETER_MB + ANALYSIS_MB + TORCH_MB, LIGHT_JOB_SECONDS + TORCH_STARTUP_SECONDS)


def _cases(config: dict) -> dict[str, dict]:
    return {name: {**block, "name": name} for name, block in config["cases"].items()}


def sample_prompts_job(wildcards: dict, config: dict) -> JobEstimate:
    case = _cases(config)[wildcards["case"]]
    return sample_prompts(case, int(wildcards["L"]), config["dataset"])


def train_ensemble_job(wildcards: dict, config: dict) -> JobEstimate:
    case, model = _cases(config)[wildcards["case"]], wildcards["model"]
    return train_ensemble(case, model, config["models"][model], int(wildcards["L"]), config["dataset"], config["training"])


def evaluate_bayes_job(wildcards: dict, config: dict) -> JobEstimate:
    case = _cases(config)[wildcards["case"]]
    return evaluate(case, int(wildcards["L"]), config["evaluation"], config["execution"]["evaluation"]["chunk_size"])


def evaluate_trained_job(wildcards: dict, config: dict) -> JobEstimate:
    case = _cases(config)[wildcards["case"]]
    return evaluate_trained(case, int(wildcards["L"]), config)


def light(wildcards: dict, config: dict) -> JobEstimate:
    """The size model of a study's compute rule whose jobs stay small whatever the config (`light_job`)."""
    return light_job("a light job")


def stated_request(rule: str, requested: dict) -> JobEstimate:
    """A job whose config block states its request ({mem_mb, runtime_minutes}): the estimate is that request
    without the headroom, so that the request comes back unchanged."""
    return JobEstimate(rule, requested["mem_mb"] / MEMORY_HEADROOM, 60 * requested["runtime_minutes"] / RUNTIME_HEADROOM)


SHARED_SIZES: dict[str, SizeModel] = {"sample_prompts": sample_prompts_job, "train_ensemble": train_ensemble_job,
                                      "evaluate_bayes": evaluate_bayes_job, "evaluate_trained": evaluate_trained_job}
"""The shared stages' rules and their size models (the studies' are in their `Study.sizes`)."""


def job_estimate(rule: str, wildcards: dict, config: dict, sizes: Mapping[str, SizeModel]) -> JobEstimate:
    """The estimate of one job of `rule` by its size model in `sizes`; a rule without one is a light job."""
    model = sizes.get(rule)
    return light_job(rule) if model is None else model(dict(wildcards), config)


def largest_job(config: dict, runs) -> JobEstimate:
    """The job with the largest memory estimate among the datasets, trainings and evaluations the config plans."""
    cases = _cases(config)
    lengths = {(case, block["L"]) for case, block in cases.items()} | {(run.case, run.L) for run in runs}
    estimates = [sample_prompts(cases[case], length, config["dataset"]) for case, length in lengths]
    estimates += [evaluate(cases[case], length, config["evaluation"], config["execution"]["evaluation"]["chunk_size"])
                  for case, length in lengths]
    estimates += [train_ensemble(cases[run.case], run.model, config["models"][run.model], run.L, config["dataset"],
                                 config["training"]) for run in runs]
    return max(estimates, key=lambda estimate: estimate.megabytes)


def machine_memory_mb() -> float:
    """This machine's physical memory."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / MB


def machine_cores() -> int:
    """The cores this process may run on: its CPU affinity, lowered by a cgroup CPU quota if one is set
    (containers often see every host core but may use only a few)."""
    cores = len(os.sched_getaffinity(0))
    try:
        quota, period = open("/sys/fs/cgroup/cpu.max").read().split()
    except (OSError, ValueError):
        return cores
    if quota == "max":
        return cores
    return max(1, min(cores, math.floor(int(quota) / int(period))))
