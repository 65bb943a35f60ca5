"""The mssa study's job sizes (icdenoise.pipeline.resources): its in-context trainings state their
request in the config; its SNR trajectories and leaderboard scores grow with their arrays."""

from __future__ import annotations

from icdenoise.pipeline.resources import (
    ANALYSIS_MB,
    INTERPRETER_MB,
    LIGHT_JOB_SECONDS,
    STARTUP_SECONDS,
    TORCH_MB,
    TORCH_STARTUP_SECONDS,
    JobEstimate,
    SizeModel,
    float_arrays,
    light,
    stated_request,
)

SECONDS_PER_TOKEN_LAYER = 5.0e-5  # the leaderboard's scores: sampling and MSSA, per prompt, token and layer
# (measured 2.5e-5 on the 2-core EPYC, paper config: twice that, for slower machines)
SECONDS_PER_LANGUAGE_CHARACTER = 1.0e-4  # a language model's training step, per character of its batch (language_job)


def trajectory_job(rule: str, depth: int, n: int, snr: dict) -> JobEstimate:
    """Every layer's tokens, and per head a few copies of their coordinates (measured 669 and 1075 MB
    against 994 and 1188 estimated on the paper config)."""
    working = 4 * float_arrays((depth + 1) * snr["tokens"] * n * snr["K"])
    return JobEstimate(rule, INTERPRETER_MB + TORCH_MB + ANALYSIS_MB + working, LIGHT_JOB_SECONDS + TORCH_STARTUP_SECONDS)


def snr_job(wildcards: dict, config: dict) -> JobEstimate:
    snr = config["mssa"]["snr"]
    return trajectory_job("simulate_mssa_snr", snr["depth"], snr["n"], snr)


def sweep_job(wildcards: dict, config: dict) -> JobEstimate:
    snr, sweep = config["mssa"]["snr"], config["mssa"]["sweep"]
    return trajectory_job("sweep_mssa_snr", sweep["depth"], max(snr["n"], snr["K"] * max(sweep["ps"])), snr)


def softmax_sweep_job(wildcards: dict, config: dict) -> JobEstimate:
    snr, sweep = config["mssa"]["snr"], config["mssa"]["softmax_sweep"]
    largest = {**snr, "tokens": max(snr["tokens"], *sweep["token_counts"])}
    return trajectory_job("sweep_mssa_softmax", sweep["depth"], max(snr["n"], snr["K"] * max(sweep["ps"])), largest)


def regression_job(wildcards: dict, config: dict) -> JobEstimate:
    """The config states the request (`execution.mssa.regression.resources`)."""
    return stated_request("train_mssa_regression", config["execution"]["mssa"]["regression"]["resources"])


def language_job(wildcards: dict, config: dict) -> JobEstimate:
    """The encoded corpus a few times over (4.6 million characters as int64) and the model's activations; time by the
    characters trained on (measured 30 ms a step of 32 windows of 33 characters on one loaded core of the 2-core EPYC,
    about 2.8e-5 s a character; the calibration table's jobs, run with two other builds on the 2 cores, 47-60 s for
    633,600 characters, up to 9.4e-5 s a character: 1e-4, for a crowded or slower machine)."""
    language = config["mssa"]["language"]
    seconds = SECONDS_PER_LANGUAGE_CHARACTER * language["steps"] * language["batch"] * (language["context"] + 1)
    return JobEstimate("train_mssa_language", INTERPRETER_MB + TORCH_MB + ANALYSIS_MB + 3 * 8 * 4.8e6 / 2**20,
                       TORCH_STARTUP_SECONDS + seconds)


def scores_job(wildcards: dict, config: dict) -> JobEstimate:
    """A chunk's attention weights (K, L, L) and a few copies of its tokens (L, n) per prompt, three times
    over (scores, weights and their φ): measured 1658 MB against 2301 estimated on the paper config."""
    settings, evaluation = config["mssa"]["leaderboard"], config["evaluation"]
    case = config["cases"][wildcards["case"]]
    length = int(case["L"])
    seconds = SECONDS_PER_TOKEN_LAYER * evaluation["n_prompts"] * length * (settings["layers"] + 1)
    chunk = min(config["execution"]["evaluation"]["chunk_size"], evaluation["n_prompts"])
    working = 3 * float_arrays(chunk * (case["K"] * length**2 + 4 * length * case["n"]))
    return JobEstimate(f"score_mssa_denoisers (case {wildcards['case']})", INTERPRETER_MB + TORCH_MB + ANALYSIS_MB + working,
                       STARTUP_SECONDS + seconds)


SECONDS_PER_IMAGE_BRANCH = 1.5e-4  # a vision training step, per image of the batch and residual branch (an AoT layer has
# one, a ViT layer two: the two models then cost alike); measured up to 1.1e-4 at width 32 on the 2-core EPYC with other
# work beside it (load 2-5, 2026-11-29; about 3e-5 on a quieter machine), a test-set evaluation every 50 steps included


def vision_job(wildcards: dict, config: dict) -> JobEstimate:
    """One digit classifier: an interpreter with torch, the digits (1797 × 64 floats) and a tiny model; its steps'
    time grows with the batch, the residual branches and the width."""
    vision = config["mssa"]["vision"]
    model = wildcards["vision_model"]
    branches = vision["models"][model]["layers"] * (2 if model == "vit" else 1)
    seconds = SECONDS_PER_IMAGE_BRANCH * vision["steps"] * vision["batch"] * branches * max(1.0, (vision["width"] / 32) ** 2)
    return JobEstimate(f"train_mssa_vision ({model})", INTERPRETER_MB + TORCH_MB + ANALYSIS_MB, STARTUP_SECONDS + TORCH_STARTUP_SECONDS + seconds)


SIZES: dict[str, SizeModel] = {"simulate_mssa_snr": snr_job, "sweep_mssa_snr": sweep_job, "sweep_mssa_softmax": softmax_sweep_job,
                               "train_mssa_regression": regression_job, "train_mssa_regression_grid_point": regression_job,
                               "prepare_mssa_language_corpus": light, "train_mssa_language": language_job,
                               "split_mssa_vision_digits": light, "train_mssa_vision": vision_job,
                               "score_mssa_denoisers": scores_job, "fit_mssa_regression_baselines": light}
