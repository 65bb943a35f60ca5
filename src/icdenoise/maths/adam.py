"""Adam (Kingma & Ba 2015, Algorithm 1), in torch.optim.Adam's order of floating-point operations.

The training protocol is Adam with the default betas and eps and a learning rate multiplied by a
factor at given epochs (torch's MultiStepLR). It is written out here because constructing any
torch.optim optimiser imports torch._dynamo, about one second of every training job's start-up.
`tests/unit/test_adam.py` holds it bitwise equal to torch.optim.Adam with MultiStepLR.
"""

from __future__ import annotations

import torch


class Adam:
    """Adam without weight decay or amsgrad, on a list of parameters updated in place."""

    def __init__(self, parameters, lr: float, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8):
        self.parameters = list(parameters)
        self.lr = lr
        self.beta1, self.beta2 = betas
        self.eps = eps
        self.steps = 0
        self.first_moments = [torch.zeros_like(p, memory_format=torch.preserve_format) for p in self.parameters]
        self.second_moments = [torch.zeros_like(p, memory_format=torch.preserve_format) for p in self.parameters]

    def zero_grad(self) -> None:
        for parameter in self.parameters:
            parameter.grad = None

    def decay(self, factor: float) -> None:
        """Multiply the learning rate by `factor` (MultiStepLR multiplies the current rate, not the first)."""
        self.lr = self.lr * factor

    @torch.no_grad()
    def step(self) -> None:
        """One update of every parameter that has a gradient, with bias-corrected moments."""
        self.steps += 1
        bias_correction1 = 1 - self.beta1**self.steps
        bias_correction2_sqrt = (1 - self.beta2**self.steps) ** 0.5
        step_size = self.lr / bias_correction1
        for parameter, first, second in zip(self.parameters, self.first_moments, self.second_moments):
            if parameter.grad is None:
                continue
            gradient = parameter.grad
            first.lerp_(gradient, 1 - self.beta1)
            second.mul_(self.beta2).addcmul_(gradient, gradient, value=1 - self.beta2)
            denominator = (second.sqrt() / bias_correction2_sqrt).add_(self.eps)
            parameter.addcdiv_(first, denominator, value=-step_size)
