"""Our heavy-ball SGD against torch.optim.SGD: bitwise equal parameters, step after step, on the CPU; and the step
replayed from a CUDA graph on a GPU."""

import pytest
import torch

from icdenoise.maths.sgd import HeavyBallSGD

needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")


def quadratic_loss(parameters, step: int) -> torch.Tensor:
    """A loss whose gradient changes with the step, so that the momentum buffer matters."""
    generator = torch.Generator().manual_seed(step)
    return sum(((p - torch.randn(p.shape, generator=generator, dtype=p.dtype).to(p.device)) ** 2 * (1 + step % 3)).sum()
               for p in parameters)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("momentum", [0.0, 0.9])
def test_equals_torch_sgd_step_after_step(dtype, momentum):
    initial = [torch.randn(3, 4, 4, generator=torch.Generator().manual_seed(k), dtype=dtype) for k in range(2)]
    ours = [torch.nn.Parameter(p.clone()) for p in initial]
    theirs = [torch.nn.Parameter(p.clone()) for p in initial]
    optimiser, reference = HeavyBallSGD(ours, lr=0.05, momentum=momentum), torch.optim.SGD(theirs, lr=0.05, momentum=momentum)
    for step in range(12):
        for parameters, opt in ((ours, optimiser), (theirs, reference)):
            opt.zero_grad()
            quadratic_loss(parameters, step).backward()
            opt.step()
        for a, b in zip(ours, theirs):
            assert torch.equal(a, b), f"step {step}: max difference {(a - b).abs().max().item()}"
    assert not torch.equal(ours[0], initial[0])


def test_a_parameter_without_a_gradient_is_left_alone():
    moved, kept = torch.nn.Parameter(torch.ones(3)), torch.nn.Parameter(torch.ones(3))
    optimiser = HeavyBallSGD([moved, kept], lr=0.5, momentum=0.9)
    for _ in range(2):
        moved.grad = torch.ones(3)
        optimiser.step()
    torch.testing.assert_close(moved.detach(), torch.full((3,), 1 - 0.5 * (1 + 1.9)), rtol=0, atol=1e-7)
    assert torch.equal(kept.detach(), torch.ones(3)) and optimiser.buffers[1] is None


def test_a_run_continued_from_its_state_in_a_new_optimiser_equals_the_uninterrupted_run_bitwise():
    """`state` after 5 steps, loaded by a new optimiser on copies of the parameters: 7 more steps give the bits of
    12 uninterrupted steps (the momentum buffers carried over; a parameter never stepped keeps no buffer)."""
    initial = [torch.randn(3, 4, generator=torch.Generator().manual_seed(k)) for k in range(2)]
    reference = [torch.nn.Parameter(p.clone()) for p in initial]
    stopped = [torch.nn.Parameter(p.clone()) for p in initial]
    whole, first = HeavyBallSGD(reference, lr=0.05, momentum=0.9), HeavyBallSGD(stopped, lr=0.05, momentum=0.9)

    def steps(parameters, optimiser, span):
        for step in span:
            optimiser.zero_grad()
            quadratic_loss(parameters[:1], step).backward()  # the second parameter never gets a gradient
            optimiser.step()

    steps(reference, whole, range(12))
    steps(stopped, first, range(5))
    saved = first.state()
    assert saved["buffers"][1] is None
    continued = [torch.nn.Parameter(p.detach().clone()) for p in stopped]
    second = HeavyBallSGD(continued, lr=1.0, momentum=0.0)
    second.load_state(saved)
    steps(continued, second, range(5, 12))
    for a, b in zip(continued, reference):
        assert torch.equal(a, b)


@needs_cuda
def test_on_a_gpu_the_captured_step_replays_the_eager_step():
    cuda = torch.device("cuda")
    initial = torch.randn(64, 32, generator=torch.Generator().manual_seed(0))
    runs = []
    for capture in (False, True):
        parameter = torch.nn.Parameter(initial.clone().to(cuda))
        optimiser = HeavyBallSGD([parameter], lr=0.01, momentum=0.9)
        target = torch.zeros_like(parameter)

        def step():
            optimiser.zero_grad()
            ((parameter - target) ** 2).sum().backward()
            optimiser.step()

        stream = torch.cuda.Stream()
        with torch.cuda.stream(stream):
            for _ in range(3):
                step()
            if capture:
                graph = torch.cuda.CUDAGraph()
                with torch.cuda.graph(graph):
                    step()
            for _ in range(10):
                graph.replay() if capture else step()
        torch.cuda.synchronize()
        runs.append(parameter.detach().cpu())
    torch.testing.assert_close(runs[1], runs[0], rtol=1e-6, atol=1e-7)
