"""Adam (Kingma & Ba 2015, Algorithm 1), in torch.optim.Adam's order of floating-point operations.

The training protocol is Adam with the default betas and eps and a learning rate multiplied by a
factor at given epochs (torch's MultiStepLR). It is written out here because constructing any
torch.optim optimiser imports torch._dynamo, about one second of every training job's start-up.
`tests/unit/maths/test_adam.py` holds it bitwise equal to torch.optim.Adam with MultiStepLR.

`step_with_factors` is the same update with the two factors that change with the step count t read
from a tensor (`step_factors` tabulates them), so that no Python number in it changes from step to
step and the update can be captured once in a CUDA graph and replayed. On the CPU it is bitwise equal
to `step`; on a GPU its multi-tensor (foreach) kernels round differently from `step`'s per-tensor ones.
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

    def state(self) -> dict:
        """What continues the run where it is (a checkpoint): the learning rate, the step count and both moments."""
        return {"lr": self.lr, "steps": self.steps, "first_moments": [first.detach().cpu().clone() for first in self.first_moments],
                "second_moments": [second.detach().cpu().clone() for second in self.second_moments]}

    @torch.no_grad()
    def load_state(self, state: dict) -> None:
        """Continue from `state` (`state`); the moments are copied into the tensors there are, which keep their
        addresses (a captured CUDA graph reads them)."""
        self.lr, self.steps = state["lr"], state["steps"]
        for tensors, saved in ((self.first_moments, state["first_moments"]), (self.second_moments, state["second_moments"])):
            for tensor, value in zip(tensors, saved, strict=True):
                tensor.copy_(value)

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

    def step_factors(self, steps: int) -> torch.Tensor:
        """(steps, 2), on the parameters' device and of their dtype: row t − 1 holds −lr/(1 − β1^t) and
        √(1 − β2^t) for the steps t = self.steps + 1, …, self.steps + steps (Algorithm 1's bias corrections).

        Computed in double exactly as `step` computes its Python numbers, then rounded to the parameters'
        dtype as torch rounds a Python number that multiplies or divides a tensor of that dtype."""
        rows = []
        for count in range(self.steps + 1, self.steps + steps + 1):
            step_size = self.lr / (1 - self.beta1**count)
            rows.append((-step_size, (1 - self.beta2**count) ** 0.5))
        first = self.parameters[0]
        return torch.tensor(rows, dtype=torch.float64).to(device=first.device, dtype=first.dtype)

    @torch.no_grad()
    def step_with_factors(self, factors: torch.Tensor) -> None:
        """`step` with its step-dependent numbers taken from `factors`, a row of `step_factors`: m ← lerp(m, g, 1 − β1),
        v ← β2·v + (1 − β2)·g², θ ← θ + (−lr/(1 − β1^t))·m / (√v / √(1 − β2^t) + ε), in `step`'s order of operations.

        Every parameter with a gradient is updated (multi-tensor kernels); `self.steps` does not change."""
        kept = [index for index, parameter in enumerate(self.parameters) if parameter.grad is not None]
        parameters = [self.parameters[index] for index in kept]
        gradients = [parameter.grad for parameter in parameters]
        firsts = [self.first_moments[index] for index in kept]
        seconds = [self.second_moments[index] for index in kept]
        torch._foreach_lerp_(firsts, gradients, 1 - self.beta1)
        torch._foreach_mul_(seconds, self.beta2)
        torch._foreach_addcmul_(seconds, gradients, gradients, value=1 - self.beta2)
        denominators = torch._foreach_sqrt(seconds)
        torch._foreach_div_(denominators, factors[1])
        torch._foreach_add_(denominators, self.eps)
        updates = torch._foreach_mul(firsts, factors[0])
        torch._foreach_div_(updates, denominators)
        torch._foreach_add_(parameters, updates)
