"""The static training loop both studies' GPU trainings run on (`maths.graphs.StaticLoop`): run eagerly on the CPU it
is the plain loop bit for bit, with chunks that do not divide the steps; its callbacks come in the documented order;
a run stopped at every save point and continued equals one that never stopped; and, on a GPU, the captured graph
gives the bits of the same loop run eagerly, continued or not."""

import os

import pytest
import torch
from helpers import stopped_at_every_save_point

from icdenoise.maths.adam import Adam
from icdenoise.maths.graphs import WARMUP_STEPS, StaticLoop, deterministic_algorithms, stage

CPU = torch.device("cpu")
needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
STEPS, BATCH, WIDTH = 11, 8, 5


def batch(step: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Step `step`'s batch of a noisy linear regression, from its own seed (so no generator needs saving)."""
    generator = torch.Generator().manual_seed(1000 + step)
    xs = torch.randn(BATCH, WIDTH, generator=generator)
    return xs, xs.sum(dim=1) + 0.1 * torch.randn(BATCH, generator=generator)


def model(device: torch.device) -> torch.nn.Linear:
    torch.manual_seed(0)
    return torch.nn.Linear(WIDTH, 1).to(device)


def plain_loop(device: torch.device) -> tuple[list[float], torch.Tensor]:
    """The loop as written: each step draws its batch, steps Adam and reads its loss back."""
    layer = model(device)
    optimiser = Adam(layer.parameters(), lr=0.05)
    losses = []
    for step in range(STEPS):
        xs, ys = (part.to(device) for part in batch(step))
        optimiser.zero_grad()
        loss = ((layer(xs)[:, 0] - ys) ** 2).mean()
        loss.backward()
        optimiser.step()
        losses.append(float(loss.detach()))
    return losses, layer.weight.detach().cpu().clone()


def static_loop(device: torch.device, chunk_steps: int, capture: bool = False, checkpoint=None,
                events: list | None = None) -> tuple[list[float], torch.Tensor]:
    """The same training on a `StaticLoop`, continued from `checkpoint`'s state where it has one."""
    layer = model(device)
    optimiser = Adam(layer.parameters(), lr=0.05)
    loop = StaticLoop(STEPS, chunk_steps, device, capture)
    staged_xs, staged_ys = loop.buffer(BATCH, WIDTH), loop.buffer(BATCH)
    factors, losses = optimiser.step_factors(STEPS), loop.vector()

    def step() -> None:
        optimiser.zero_grad()
        loss = ((layer(loop.batch(staged_xs))[:, 0] - loop.batch(staged_ys)) ** 2).mean()
        loop.write(losses, loss)
        loss.backward()
        optimiser.step_with_factors(loop.row(factors))
        loop.advance()

    def load(first: int, count: int) -> None:
        drawn = [batch(step) for step in range(first, first + count)]
        stage(staged_xs, torch.stack([xs for xs, _ in drawn]))
        stage(staged_ys, torch.stack([ys for _, ys in drawn]))
        if events is not None:
            events.append(("load", first, count))

    def state(step: int) -> dict:
        return {"model": {name: value.detach().cpu().clone() for name, value in layer.state_dict().items()},
                "optimiser": optimiser.state(), "losses": losses[:step].cpu().clone(), "step": step}

    def rewind() -> None:
        layer.load_state_dict(saved["model"])
        optimiser.load_state(saved["optimiser"])

    first, saved = 0, checkpoint.resume("static loop") if checkpoint is not None else None
    if saved is not None:
        rewind()
        first = saved["step"]
        losses[:first].copy_(saved["losses"])
        loop.counter.fill_(first)
    before = (lambda step: events.append(("before", step))) if events is not None else None
    after = (lambda step: events.append(("after", step))) if events is not None else None
    finished = loop.run(step, first, load, before=before, after=after, checkpoint=checkpoint, state=state, rewind=rewind,
                        finish=lambda: losses.cpu().tolist())
    return finished, layer.weight.detach().cpu().clone()


@pytest.mark.parametrize("chunk_steps", [1, 3, 4, 11, 50])
def test_run_eagerly_on_the_cpu_the_static_loop_is_the_plain_loop_bit_for_bit(chunk_steps):
    """Chunks that divide the steps or not, one chunk of every step, and a chunk longer than the run (cut to it)."""
    losses, weights = static_loop(CPU, chunk_steps)
    expected_losses, expected_weights = plain_loop(CPU)
    assert losses == expected_losses
    assert torch.equal(weights, expected_weights)


def test_the_callbacks_come_once_a_step_with_a_load_at_the_start_of_every_chunk():
    events = []
    static_loop(CPU, 4, events=events)
    expected = []
    for step in range(STEPS):
        expected.append(("before", step))
        if step % 4 == 0:
            expected.append(("load", step, min(4, STEPS - step)))
        expected.append(("after", step))
    assert events == expected
    assert [event for event in events if event[0] == "load"] == [("load", 0, 4), ("load", 4, 4), ("load", 8, 3)]


def test_a_run_stopped_at_every_chunk_and_continued_gives_the_uninterrupted_run_bit_for_bit(tmp_path):
    (losses, weights), stops = stopped_at_every_save_point(lambda checkpoint: static_loop(CPU, 3, checkpoint=checkpoint),
                                                           tmp_path / "run.checkpoint")
    assert stops == [3, 6, 9]
    expected_losses, expected_weights = static_loop(CPU, 3)
    assert losses == expected_losses and torch.equal(weights, expected_weights)


def test_stage_copies_a_short_chunk_into_the_first_rows_and_leaves_the_rest():
    buffer = torch.full((4, 2), -1.0)
    stage(buffer, torch.ones(3, 2))
    assert buffer.tolist() == [[1.0, 1.0]] * 3 + [[-1.0, -1.0]]


def test_a_cuda_graph_needs_a_cuda_device():
    with pytest.raises(ValueError, match="CUDA graph needs a CUDA device"):
        StaticLoop(STEPS, 3, CPU, capture=True)


@pytest.mark.parametrize(("given", "kept"), [(None, ":4096:8"), (":16:8", ":16:8")])
def test_deterministic_algorithms_are_on_only_inside_the_block_with_a_deterministic_cublas_workspace(monkeypatch, given, kept):
    if given is None:
        monkeypatch.delenv("CUBLAS_WORKSPACE_CONFIG", raising=False)
    else:
        monkeypatch.setenv("CUBLAS_WORKSPACE_CONFIG", given)
    assert not torch.are_deterministic_algorithms_enabled()
    with deterministic_algorithms():
        assert torch.are_deterministic_algorithms_enabled() and not torch.is_deterministic_algorithms_warn_only_enabled()
        assert os.environ["CUBLAS_WORKSPACE_CONFIG"] == kept
    assert not torch.are_deterministic_algorithms_enabled()


@needs_cuda
@pytest.mark.parametrize("chunk_steps", [2, 4])
def test_on_a_gpu_the_captured_graph_gives_the_eager_loops_bits_continued_or_not(chunk_steps, tmp_path):
    """Chunks of 2 continue before the warm-up ends, chunks of 4 after it (warm-up steps rewound): every continued run
    replays the graph at the steps where the run that never stopped does."""
    cuda = torch.device("cuda")
    assert (chunk_steps < WARMUP_STEPS) == (chunk_steps == 2)
    with deterministic_algorithms():
        eager = static_loop(cuda, chunk_steps)
        graph = static_loop(cuda, chunk_steps, capture=True)
        continued, stops = stopped_at_every_save_point(
            lambda checkpoint: static_loop(cuda, chunk_steps, capture=True, checkpoint=checkpoint), tmp_path / "run.checkpoint")
    assert stops == list(range(chunk_steps, STEPS, chunk_steps))
    for other in (graph, continued):
        assert other[0] == eager[0] and torch.equal(other[1], eager[1])
