"""Our Adam against torch.optim.Adam with MultiStepLR: bitwise equal parameters, step after step."""

import pytest
import torch

from icdenoise.maths.adam import Adam


def quadratic_loss(parameters, step: int) -> torch.Tensor:
    """A loss whose gradient changes with the step, so that both moments matter."""
    generator = torch.Generator().manual_seed(step)
    return sum(((p - torch.randn(p.shape, generator=generator, dtype=p.dtype)) ** 2 * (1 + step % 3)).sum() for p in parameters)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_equals_torch_adam_with_multistep_decay(dtype):
    initial = [torch.randn(3, 4, 4, generator=torch.Generator().manual_seed(k), dtype=dtype) for k in range(2)]
    ours = [torch.nn.Parameter(p.clone()) for p in initial]
    theirs = [torch.nn.Parameter(p.clone()) for p in initial]
    milestones, factor, epochs, steps_per_epoch = [3, 4, 4], 0.1, 6, 5  # a repeated milestone decays twice
    optimiser = Adam(ours, lr=0.01)
    reference = torch.optim.Adam(theirs, lr=0.01)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(reference, milestones, factor)
    decays = {epoch: milestones.count(epoch) for epoch in milestones}
    step = 0
    for epoch in range(epochs):
        for _ in range(steps_per_epoch):
            for parameters, opt in ((ours, optimiser), (theirs, reference)):
                opt.zero_grad()
                quadratic_loss(parameters, step).backward()
                opt.step()
            step += 1
            for a, b in zip(ours, theirs):
                assert torch.equal(a, b), f"step {step}: max difference {(a - b).abs().max().item()}"
        scheduler.step()
        if epoch + 1 in decays:
            optimiser.decay(factor ** decays[epoch + 1])
        assert optimiser.lr == reference.param_groups[0]["lr"]
    assert optimiser.lr == pytest.approx(0.01 * factor**3)
