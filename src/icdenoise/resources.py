"""Pre-flight estimates of each job's peak memory, from the config alone.

Used to refuse, before the first job, a config whose largest job cannot fit in this machine's
memory. The estimates are the arrays a job holds at its peak, times a stated factor for copies and
temporaries, plus the interpreter's own footprint; `docs/reproducibility.md` says how they compare
with the `benchmark:` files' measured peaks.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

MB = 2**20
INTERPRETER_MB = 250  # python, numpy, pandas, pyarrow (measured 170-250 MB for the lightest jobs)
TORCH_MB = 350  # importing torch (measured: training jobs idle at about 450-550 MB)
COPIES = 3  # arrays held twice or three times at the peak: sampled list and stacked array, arrow and numpy


@dataclass(frozen=True)
class JobEstimate:
    job: str
    megabytes: float


def _float_arrays(count: float, bytes_per_value: int = 8) -> float:
    return count * bytes_per_value / MB


def sample_prompts(case: dict, length: int, dataset: dict) -> JobEstimate:
    tokens = dataset["n_prompts"] * (length + 1) * case["n"]
    megabytes = INTERPRETER_MB + COPIES * _float_arrays(tokens) + _float_arrays(tokens, 4)
    return JobEstimate(f"sample_prompts (case {case['name']}, L = {length})", megabytes)


def train_ensemble(case: dict, model: str, length: int, dataset: dict, training: dict) -> JobEstimate:
    """The dataset (float32, arrow and numpy), the prepared features, every seed's minibatch with its
    autograd intermediates, and a full-split recording: one score per (seed, prompt, token)."""
    n, seeds = case["n"], len(training["seeds"])
    tokens = dataset["n_prompts"] * (length + 1) * n
    batch = seeds * training["batch_size"] * length * n
    recording = seeds * dataset["n_prompts"] * length
    arrays = COPIES * _float_arrays(tokens, 4) + 4 * _float_arrays(batch, 4) + 3 * _float_arrays(recording, 4)
    return JobEstimate(f"train_ensemble (case {case['name']}, L = {length}, model {model})", INTERPRETER_MB + TORCH_MB + arrays)


def evaluate(case: dict, length: int, evaluation: dict) -> JobEstimate:
    """One chunk of fresh prompts in float64, its untransformed copy, and estimator temporaries as large
    as the context (second moments, k-means distances)."""
    chunk = min(evaluation["chunk_size"], evaluation["n_prompts"]) * (length + 1) * max(case["n"], case.get("K", 0))
    return JobEstimate(f"evaluate_bayes and evaluate_trained (case {case['name']}, L = {length})", INTERPRETER_MB + TORCH_MB + 6 * _float_arrays(chunk))


def largest_job(config: dict, runs) -> JobEstimate:
    """The job with the largest estimate among the datasets, trainings and evaluations the config plans."""
    cases = {name: {**block, "name": name} for name, block in config["cases"].items()}
    lengths = {(case, block["L"]) for case, block in cases.items()} | {(run.case, run.L) for run in runs}
    estimates = [sample_prompts(cases[case], length, config["dataset"]) for case, length in lengths]
    estimates += [evaluate(cases[case], length, config["evaluation"]) for case, length in lengths]
    estimates += [train_ensemble(cases[run.case], run.model, run.L, config["dataset"], config["training"]) for run in runs]
    return max(estimates, key=lambda estimate: estimate.megabytes)


def machine_memory_mb() -> float:
    """This machine's physical memory."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / MB
