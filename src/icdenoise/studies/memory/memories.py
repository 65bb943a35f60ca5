"""Linear associative memories W ∈ R^{d×d} read out by f̂(z) = argmax_y u_yᵀ W x (Bietti 2025 slides):

- Hebbian (slide 9): W = Σ_z u_{f(z)} e_zᵀ;
- one gradient step (slide 8, "Gradients as memories"): from W = 0, one full-batch step of size η on the
  population cross-entropy with z uniform on the N stored inputs and M outputs gives
  W₁ = (η/N) Σ_z Σ_k (1{f(z) = k} − 1/M) u_k e_zᵀ = (η/N) Σ_z (u_{f(z)} − ū) e_zᵀ, ū the mean output;
  the slide writes 1/N for 1/M because its f maps [N] to [N];
- one gradient step with noisy inputs x = e_y + p_t (slide 23): y uniform on [N], t uniform on [T]; then
  E[x | y = k] − E[x] = e_k − ē and W₁ = (η/N) Σ_k u_k (e_k − ē)ᵀ, the positional part cancelling;
- low rank (slide 9): W = W₁ᵀ W₂ with W₁ ∈ R^{m×d} random and W₂ one gradient step from 0, which is
  W₂ = W₁ G with G the full-rank step above, so W = W₁ᵀ W₁ G.

The argmax read-out does not depend on η > 0, so every step here takes η = 1."""

from __future__ import annotations

import torch


def hebbian(inputs: torch.Tensor, outputs: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """W = Σ_z u_{f(z)} e_zᵀ for inputs (N, d), output table (M, d) and targets f (N,)."""
    return outputs[targets].T @ inputs


def gradient_step(inputs: torch.Tensor, outputs: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """W₁ = (1/N) Σ_z (u_{f(z)} − ū) e_zᵀ: minus the population cross-entropy gradient at W = 0 (slide 8)."""
    return (outputs[targets] - outputs.mean(dim=0)).T @ inputs / inputs.shape[0]


def noisy_gradient_step(inputs: torch.Tensor, outputs: torch.Tensor) -> torch.Tensor:
    """W₁ = (1/N) Σ_k u_k (e_k − ē)ᵀ: minus the population gradient at W = 0 for y uniform on [N] and
    x = e_y + p_t with t uniform (slide 23); the positions p_t cancel in E[x | y] − E[x]."""
    return outputs.T @ (inputs - inputs.mean(dim=0)) / inputs.shape[0]


def low_rank(inputs: torch.Tensor, outputs: torch.Tensor, targets: torch.Tensor, projection: torch.Tensor) -> torch.Tensor:
    """W = W₁ᵀ W₂ with W₁ = `projection` (m, d) fixed and W₂ = W₁ G one gradient step from 0 (slide 9)."""
    return projection.T @ (projection @ gradient_step(inputs, outputs, targets))
