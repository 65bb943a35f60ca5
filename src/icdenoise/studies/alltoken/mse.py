"""The explainer's Fig. 4(a): MSE/σ² of Stage-1-only, Stage-2-only, two-stage and Bayes on a two-mode
mixture as the number of tokens N grows, and the MSE against depth (L* marked); and the Stage-2 bandwidth
scan: the two-stage MSE against β_c at fixed Stage 1, testing "β_c = 1/σ², derived, not learned"."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from icdenoise.maths.cases import make_case
from icdenoise.maths.estimators import closed_form_denoisers
from icdenoise.studies.alltoken.empirical_bayes import DTYPE, gaussian_attention, particle_flow, stage_estimates, theory_depth

BAYES = "bayes"


def recorded_depths(block: dict) -> list[int]:
    """Every `depth_step` layers up to `max_depth`, and the bar chart's depth."""
    return sorted(set(range(0, block["max_depth"] + 1, block["depth_step"])) | {block["depth"]})


def mse_by_depth(case_block: dict, block: dict, tokens: int, contexts: int) -> pd.DataFrame:
    """Per context: columns N, context, depth, estimator, mse_over_sigma2 (the mean over the context's
    tokens and coordinates of (x̂ − x)², over σ²). Bayes (the task's `oracle`, the posterior mean under
    the true prior) does not depend on depth and is given at every recorded depth."""
    case = make_case(case_block)
    prompts = case.sample(contexts, tokens, block["seed"])
    sigma_z_sq = case.corruption.sigma_z_sq
    clean = torch.as_tensor(prompts.target, dtype=torch.float64)
    per_context = lambda estimate: ((estimate.double() - clean) ** 2).mean(dim=(1, 2)).numpy() / sigma_z_sq  # noqa: E731
    bayes = per_context(torch.as_tensor(closed_form_denoisers(case)["oracle"].predict(prompts)[0]))
    noisy = torch.as_tensor(prompts.context, dtype=DTYPE)
    frames, stage2_only = [], None
    for depth, particles in particle_flow(noisy, block["beta"], block["eta"], recorded_depths(block)):
        estimates = stage_estimates(noisy, particles, sigma_z_sq, stage2_only)
        stage2_only = estimates["stage2_only"]
        values = {name: per_context(estimate) for name, estimate in estimates.items()}
        values[BAYES] = bayes
        for name, mse in values.items():
            frames.append(pd.DataFrame({"N": tokens, "context": np.arange(contexts), "depth": depth, "estimator": name, "mse_over_sigma2": mse}))
    table = pd.concat(frames, ignore_index=True)
    return table.assign(beta=block["beta"], eta=block["eta"], sigma_z_sq=sigma_z_sq,
                        theory_depth=theory_depth(block["beta"], sigma_z_sq, block["eta"]))


def summarise(per_context: pd.DataFrame, depth: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(mse_by_n: at the bar chart's depth, columns estimator, N, L, mse_over_sigma2 (mean over
    contexts), sem (over contexts), contexts, ratio_to_bayes; by_depth: the same for every N and depth)."""
    grouped = per_context.groupby(["N", "depth", "estimator"], sort=True)["mse_over_sigma2"]
    by_depth = grouped.agg(mse_over_sigma2="mean", sem="sem", contexts="size").reset_index()
    constants = per_context[["beta", "eta", "sigma_z_sq", "theory_depth"]].iloc[0].to_dict()
    by_depth = by_depth.assign(**constants)
    bayes = by_depth[by_depth["estimator"] == BAYES].set_index(["N", "depth"])["mse_over_sigma2"]
    by_depth["ratio_to_bayes"] = by_depth["mse_over_sigma2"].to_numpy() / bayes.loc[list(zip(by_depth["N"], by_depth["depth"]))].to_numpy()
    at_depth = by_depth[by_depth["depth"] == depth].rename(columns={"depth": "L"})
    order = {name: index for index, name in enumerate(["stage1_only", "stage2_only", "two_stage", BAYES])}
    at_depth = at_depth.sort_values(["N", "estimator"], key=lambda c: c.map(order) if c.name == "estimator" else c)
    return at_depth[["estimator", "N", "L", "mse_over_sigma2", "sem", "contexts", "ratio_to_bayes", *constants]].reset_index(drop=True), by_depth


def cross_bandwidth_scan(case_block: dict, block: dict, scan: dict) -> pd.DataFrame:
    """The two-stage MSE/σ² per context as Stage 2's bandwidth β_c varies, with Stage 1 fixed: the particles of
    `block` (β, η) at depth `block["depth"]` (the bars' L*) on `scan["contexts"]` contexts of `scan["n_tokens"]`
    tokens from `scan["seed"]`. Columns N, context, beta_c, beta_c_sigma2 (β_c σ²; the explainer's 1/σ² is 1),
    mse_over_sigma2."""
    case = make_case(case_block)
    prompts = case.sample(scan["contexts"], scan["n_tokens"], scan["seed"])
    sigma_z_sq = case.corruption.sigma_z_sq
    clean = torch.as_tensor(prompts.target, dtype=torch.float64)
    noisy = torch.as_tensor(prompts.context, dtype=DTYPE)
    (_, particles), = particle_flow(noisy, block["beta"], block["eta"], [block["depth"]])
    frames = []
    for ratio in scan["beta_c_sigma2"]:
        estimate = gaussian_attention(noisy, particles, ratio / sigma_z_sq)
        mse = ((estimate.double() - clean) ** 2).mean(dim=(1, 2)).numpy() / sigma_z_sq
        frames.append(pd.DataFrame({"N": scan["n_tokens"], "context": np.arange(scan["contexts"]), "beta_c": ratio / sigma_z_sq,
                                    "beta_c_sigma2": ratio, "mse_over_sigma2": mse}))
    return pd.concat(frames, ignore_index=True).assign(depth=block["depth"], beta=block["beta"], eta=block["eta"], sigma_z_sq=sigma_z_sq)
