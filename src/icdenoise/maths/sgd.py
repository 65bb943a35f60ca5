"""Stochastic gradient descent with heavy-ball momentum, in torch.optim.SGD's order of floating-point operations.

The update (Polyak's heavy ball, as torch.optim.SGD writes it with dampening 0 and no Nesterov term): the first
step sets the buffer b ← g, every later one b ← μ·b + g; then θ ← θ − lr·b. It is written out here, as
`icdenoise.maths.adam.Adam` is, because constructing any torch.optim optimiser imports torch._dynamo, about one
second of a job's start-up. `tests/unit/maths/test_sgd.py` holds it bitwise equal to torch.optim.SGD. Every
tensor it writes keeps its address from the second step on, so that a CUDA graph can hold the step.
"""

from __future__ import annotations

import torch


class HeavyBallSGD:
    """SGD with momentum μ (0: plain SGD) on a list of parameters updated in place."""

    def __init__(self, parameters, lr: float, momentum: float = 0.0):
        self.parameters = list(parameters)
        self.lr = lr
        self.momentum = momentum
        self.buffers: list[torch.Tensor | None] = [None] * len(self.parameters)

    def zero_grad(self) -> None:
        for parameter in self.parameters:
            parameter.grad = None

    def state(self) -> dict:
        """What continues the run where it is (a checkpoint): the learning rate, the momentum and the buffers (None
        before a parameter's first step)."""
        return {"lr": self.lr, "momentum": self.momentum,
                "buffers": [None if buffer is None else buffer.detach().cpu().clone() for buffer in self.buffers]}

    @torch.no_grad()
    def load_state(self, state: dict) -> None:
        """Continue from `state` (`state`): the buffers are copied to the parameters' devices, where they keep their
        addresses from then on, as after a first step."""
        self.lr, self.momentum = state["lr"], state["momentum"]
        self.buffers = [None if saved is None else saved.to(parameter.device, copy=True)
                        for parameter, saved in zip(self.parameters, state["buffers"], strict=True)]

    @torch.no_grad()
    def step(self) -> None:
        """One update of every parameter that has a gradient."""
        for index, parameter in enumerate(self.parameters):
            if parameter.grad is None:
                continue
            direction = parameter.grad
            if self.momentum != 0:
                if self.buffers[index] is None:
                    self.buffers[index] = direction.detach().clone()
                else:
                    self.buffers[index].mul_(self.momentum).add_(direction)
                direction = self.buffers[index]
            parameter.add_(direction, alpha=-self.lr)
