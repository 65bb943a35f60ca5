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


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_step_with_tabulated_factors_equals_step(dtype):
    """The graph-capturable update, its factors read from a table row by row, is bitwise `step` on the CPU,
    a parameter without a gradient left alone as `step` leaves it."""
    initial = [torch.randn(3, 4, 4, generator=torch.Generator().manual_seed(k), dtype=dtype) for k in range(3)]
    stepped = [torch.nn.Parameter(p.clone()) for p in initial]
    tabulated = [torch.nn.Parameter(p.clone()) for p in initial]
    by_step, by_table = Adam(stepped, lr=0.01), Adam(tabulated, lr=0.01)
    factors = by_table.step_factors(12)
    assert factors.shape == (12, 2) and factors.dtype == dtype
    for step in range(12):
        for parameters, optimiser in ((stepped, by_step), (tabulated, by_table)):
            optimiser.zero_grad()
            quadratic_loss(parameters[:2], step).backward()
        by_step.step()
        by_table.step_with_factors(factors[step])
        for a, b in zip(stepped, tabulated):
            assert torch.equal(a, b), f"step {step}: max difference {(a - b).abs().max().item()}"
    assert torch.equal(tabulated[2], initial[2])
    assert by_table.step_factors(1)[0, 1] == torch.tensor((1 - 0.999) ** 0.5, dtype=dtype)
