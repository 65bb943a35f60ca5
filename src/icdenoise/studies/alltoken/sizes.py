"""The all-token study's job sizes (icdenoise.pipeline.resources): its Gaussian-kernel jobs (Fig. 4(a), the
leaderboard's scores, the Gaussian check) scale with the tokens, the depth and the draws; its other compute jobs stay
small."""

from __future__ import annotations

import math

from icdenoise.pipeline.resources import ANALYSIS_MB, INTERPRETER_MB, STARTUP_SECONDS, TORCH_MB, JobEstimate, SizeModel, light

KERNEL_SECONDS_PER_VALUE = 3.0e-9  # one Gaussian-kernel value of Stage 1 or 2, float32
# (measured 1.5e-9 per value, N = 8000, on the 2-core EPYC: twice that, for slower machines)
KERNEL_MB = INTERPRETER_MB + TORCH_MB + ANALYSIS_MB  # measured at most 345 MB: the kernels are computed in blocks


def mse_job(wildcards: dict, config: dict) -> JobEstimate:
    """Fig. 4(a) at one N: every context flown to max_depth, plus a Stage-2 pass per recorded depth."""
    block, tokens = config["alltoken"]["mse"], int(wildcards["tokens"])
    contexts = dict(zip(block["n_tokens"], block["contexts"]))[tokens]
    values = contexts * tokens**2 * (block["max_depth"] + 2 * (block["max_depth"] // block["depth_step"] + 2))
    return JobEstimate(f"evaluate_alltoken_mse (N = {tokens})", KERNEL_MB, STARTUP_SECONDS + KERNEL_SECONDS_PER_VALUE * values)


def gaussian_job(wildcards: dict, config: dict) -> JobEstimate:
    """The Gaussian check and its trend, per seed: one flow of `tokens` particles to max_time_over_T_beta·T_β at
    `beta`, and one to T_β at each β of `trend_betas` (T_β = βσ²/2, in layers of η)."""
    block = config["alltoken"]["gaussian"]
    t_beta = lambda beta: beta * block["sigma_z_sq"] / 2  # noqa: E731
    layers = math.ceil(block["max_time_over_T_beta"] * t_beta(block["beta"]) / block["eta"])
    layers += sum(round(t_beta(beta) / block["eta"]) for beta in block["trend_betas"])
    values = len(block["seeds"]) * block["tokens"] ** 2 * layers
    return JobEstimate("simulate_alltoken_gaussian", KERNEL_MB, STARTUP_SECONDS + KERNEL_SECONDS_PER_VALUE * values)


def scores_job(wildcards: dict, config: dict) -> JobEstimate:
    """The leaderboard's scores: two flows of `depth` layers per fresh prompt of the case."""
    block, length = config["alltoken"]["mse"], int(config["cases"][wildcards["case"]]["L"])
    values = 2 * config["evaluation"]["n_prompts"] * length**2 * (block["depth"] + 1)
    return JobEstimate(f"score_alltoken_denoisers (case {wildcards['case']})", KERNEL_MB,
                       STARTUP_SECONDS + KERNEL_SECONDS_PER_VALUE * values)


SIZES: dict[str, SizeModel] = {
    "evaluate_alltoken_mse": mse_job,
    "score_alltoken_denoisers": scores_job,
    "simulate_alltoken_gaussian": gaussian_job,
    **dict.fromkeys(("simulate_alltoken_before_after", "simulate_alltoken_particle_flow", "simulate_alltoken_flow_replicates",
                     "simulate_alltoken_variance",
                     "evaluate_alltoken_learned_depth", "scan_alltoken_cross_bandwidth"), light),
}
