"""All-token denoising as two-stage empirical Bayes (Smart et al. 2026, as its explainer "When Every Token Is
Noisy" tells it; docs/alltoken.md).

Every token is noisy, y_i = x_i + N(0, σ²I), and the x_i are i.i.d. from an unknown prior.

- **Stage 1** (the explainer's eq. 1): L self-attention layers with a fixed Gaussian kernel move the
  particles z_i (starting at y_i) toward the prior, z_i ← z_i + η (Σ_j softmax_j(−β/2 ‖z_i − z_j‖²) z_j − z_i).
- **Stage 2**: cross-attention from each noisy token y_i to the particles with β_c = 1/σ²,
  Σ_j softmax_j(−‖y_i − z_j‖²/(2σ²)) z_j: the posterior mean of x_i under the particles' empirical prior.

The estimators (`ESTIMATORS`): ``stage2_only`` (L = 0, Stage 2 on the noisy tokens themselves),
``stage1_only`` (the particle z_i(L) itself), ``two_stage`` (Stage 2 on the particles after L layers).
The Bayes posterior mean under the true prior is the task's registered closed form
(`icdenoise.maths.estimators`, task ``mixture``).

Everything is batched over contexts, (B, N, n), and the N×N kernels are computed in row blocks of
about `BLOCK_VALUES` values, so memory grows as B·N·n, not N².
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Iterator

import numpy as np
import torch

from icdenoise.maths.denoisers import Denoiser
from icdenoise.maths.prompts import Prompts

BLOCK_VALUES = 1 << 18  # kernel values per block: 1 MiB of float32, resident in a core's L2 cache
LOG_KERNEL_FLOOR = -80.0  # log-weights below this are raised to it: exp(−80) ≈ 2e-35 is still a normal float32
# (below ≈ −87 exp returns subnormals, which the CPU computes tens of times slower). Every row's largest
# weight is 1 (the max is subtracted), so the change in any softmax is below N·e^-80, far under float32's 6e-8.
DTYPE = torch.float32
SMALL_DIMENSION = 4  # up to this n, squared distances are summed coordinate by coordinate


def _rows_per_block(contexts: int, keys: int) -> int:
    return max(1, BLOCK_VALUES // max(1, contexts * keys))


def gaussian_attention(queries: torch.Tensor, keys: torch.Tensor, beta: float, self_attention: bool = False) -> torch.Tensor:
    """Σ_j softmax_j(−β/2 ‖q_i − k_j‖²) k_j for every query: (B, Q, n), (B, N, n) → (B, Q, n).

    The log-weights of one block of query rows are −β/2 ‖q_i − k_j‖², less each row's maximum; in
    self-attention (the queries are the keys) that maximum is the token's own log-weight, 0, and is not
    searched for.
    """
    contexts, count, dims = queries.shape
    keys_transposed = keys.transpose(1, 2).contiguous()  # (B, n, N)
    key_norms = keys_transposed.square().sum(1, keepdim=True) if dims > SMALL_DIMENSION else None
    output = torch.empty_like(queries)
    rows = _rows_per_block(contexts, keys.shape[1])
    for start in range(0, count, rows):
        block = queries[:, start:start + rows]  # (B, rows, n)
        log_weights = _squared_distances(block, keys_transposed, key_norms).mul_(-beta / 2.0)  # (B, rows, N)
        if not self_attention:
            log_weights.sub_(log_weights.amax(-1, keepdim=True))
        weights = log_weights.clamp_min_(LOG_KERNEL_FLOOR).exp_()
        total = weights.sum(-1, keepdim=True)
        for dim in range(dims):  # one matrix-vector product per coordinate: far faster than (rows, N) @ (N, n) for small n
            output[:, start:start + rows, dim:dim + 1] = weights @ keys[:, :, dim:dim + 1]
        output[:, start:start + rows] /= total
    return output


def _squared_distances(block: torch.Tensor, keys_transposed: torch.Tensor, key_norms: torch.Tensor | None) -> torch.Tensor:
    """‖q_i − k_j‖², (B, rows, N): coordinate by coordinate in low dimension, else ‖q‖² + ‖k‖² − 2 q·k."""
    if key_norms is None:
        distance_sq = (block[..., 0:1] - keys_transposed[:, 0:1]).square_()
        for dim in range(1, block.shape[-1]):
            distance_sq += (block[..., dim:dim + 1] - keys_transposed[:, dim:dim + 1]).square_()
        return distance_sq
    return (block @ keys_transposed).mul_(-2.0).add_(key_norms).add_(block.square().sum(-1, keepdim=True))


def flow_step(particles: torch.Tensor, beta: float, eta: float) -> torch.Tensor:
    """One Stage-1 layer: z ← z + η (Σ_j softmax_j(−β/2 ‖z − z_j‖²) z_j − z) (explainer, eq. 1)."""
    return particles + eta * (gaussian_attention(particles, particles, beta, self_attention=True) - particles)


def particle_flow(noisy: torch.Tensor, beta: float, eta: float, depths: list[int]) -> Iterator[tuple[int, torch.Tensor]]:
    """The particles after each depth in `depths` (increasing; depth 0 is the noisy tokens), running
    Stage 1 up to the largest depth once."""
    particles, depth = noisy, 0
    for target in sorted(depths):
        while depth < target:
            particles = flow_step(particles, beta, eta)
            depth += 1
        yield depth, particles


def posterior_mean_under_particles(noisy: torch.Tensor, particles: torch.Tensor, sigma_z_sq: float) -> torch.Tensor:
    """Stage 2: Σ_j softmax_j(−‖y_i − z_j‖²/(2σ²)) z_j, the posterior mean of x_i given y_i when the
    prior is the particles' empirical distribution (β_c = 1/σ²)."""
    return gaussian_attention(noisy, particles, 1.0 / sigma_z_sq)


def stage_estimates(noisy: torch.Tensor, particles: torch.Tensor, sigma_z_sq: float,
                    stage2_only: torch.Tensor | None = None) -> dict[str, torch.Tensor]:
    """The three empirical-Bayes estimates from the particles at some depth. stage2_only does not
    depend on the depth: pass it once computed (it is the two-stage estimate at depth 0)."""
    if stage2_only is None:
        stage2_only = posterior_mean_under_particles(noisy, noisy, sigma_z_sq)
    return {"stage1_only": particles, "stage2_only": stage2_only,
            "two_stage": posterior_mean_under_particles(noisy, particles, sigma_z_sq)}


@dataclass
class EmpiricalBayesDenoiser(Denoiser):
    """One of `ESTIMATORS` at kernel β, step η and depth `layers`, on all-token prompts: predict
    returns (1, N, T, n) for contexts (N, T, n)."""

    estimator: str
    beta: float
    eta: float
    layers: int
    sigma_z_sq: float

    ESTIMATORS: ClassVar[tuple[str, ...]] = ("stage1_only", "stage2_only", "two_stage")

    def __post_init__(self):
        if self.estimator not in self.ESTIMATORS:
            raise KeyError(f"unknown empirical-Bayes estimator {self.estimator!r}; registered: {', '.join(self.ESTIMATORS)}")

    def predict(self, prompts: Prompts) -> np.ndarray:
        if prompts.query is not prompts.context:
            raise ValueError("the empirical-Bayes estimators denoise all-token prompts (the queries are the context)")
        noisy = torch.as_tensor(prompts.context, dtype=DTYPE)
        depth = 0 if self.estimator == "stage2_only" else self.layers
        (_, particles), = particle_flow(noisy, self.beta, self.eta, [depth])
        if self.estimator == "stage1_only":
            estimate = particles
        else:
            estimate = posterior_mean_under_particles(noisy, particles, self.sigma_z_sq)
        return estimate.double().numpy()[None]


ESTIMATORS = EmpiricalBayesDenoiser.ESTIMATORS


def empirical_bayes_denoisers(beta: float, eta: float, layers: int, sigma_z_sq: float) -> dict[str, Denoiser]:
    """Every registered empirical-Bayes estimator at one (β, η, L), by name."""
    return {name: EmpiricalBayesDenoiser(name, beta, eta, layers, sigma_z_sq) for name in ESTIMATORS}


def leaderboard_denoisers(case: dict, beta: float, eta: float, depth: int) -> dict[str, Denoiser]:
    """The estimators the leaderboard scores on an all-token `case` (its config block), at Fig. 4(a)'s (β, η, depth)."""
    return empirical_bayes_denoisers(beta, eta, depth, case["corruption"]["sigma_z_sq"])


def theory_depth(beta: float, sigma_z_sq: float, eta: float) -> float:
    """L* = βσ²/(2η): the number of layers that runs the flow for the time T* = σ²/2 (docs/alltoken.md)."""
    return beta * sigma_z_sq / (2.0 * eta)


def count_clusters(particles: np.ndarray, gap: float) -> int:
    """Clusters of 1-D particles: groups of sorted positions separated by more than `gap`."""
    ordered = np.sort(np.asarray(particles).ravel())
    return int(1 + np.sum(np.diff(ordered) > gap))
