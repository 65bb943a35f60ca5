"""What runs compiled Triton kernels, and Triton's interpreter: icdenoise.maths.small_attention against the written-out
softmax (an independent computation, torch's own operations), forward and backward, and the mssa models' CUDA-graph
training loop, whose attention it is on a GPU, against their per-step loop, and that loop stopped and continued. These are integration tests because
Triton starts processes: its compiler runs ptxas and looks CUDA's library up with ldconfig, and its interpreter must
be switched on (TRITON_INTERPRET) before Triton is imported, so it runs in a process of its own. On a machine
without a GPU only the interpreter's check runs."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

from icdenoise.maths import small_attention
from icdenoise.studies.mssa.transformers import ARCHITECTURES, train_per_step, train_static, written_out_causal_attention

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "unit" / "studies" / "mssa"))
sys.path.insert(0, str(REPO / "tests" / "unit"))
from helpers import stopped_at_every_save_point  # noqa: E402
from test_mssa_static_training import RUN, trained  # noqa: E402

needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
needs_triton = pytest.mark.skipif(importlib.util.find_spec("triton") is None, reason="needs Triton (the test extra installs it)")
SHAPES = [(2, 3, 80, 16), (2, 4, 32, 8), (1, 2, 5, 3), (2, 2, 128, 64), (3, 1, 17, 16)]  # (B, H, N, p): padded or not
INTERPRETED = ("import sys; sys.path.insert(0, 'tests/integration'); import test_gpu_kernels as here; "
               "from icdenoise.maths import small_attention; here.check(small_attention.causal_attention, 'cpu'); "
               "print('interpreted:', type(small_attention._forward).__name__)")


def differences(attend, batch: int, heads: int, length: int, width: int, device: str) -> dict:
    """Largest |attend - written out| of the output and of the gradient of a (B, N, 3Hp) projection whose three chunks
    are the strided queries, keys and values (as split_heads makes them), and whether a second call gives the same bits."""
    generator = torch.Generator().manual_seed(length * width)
    base = torch.randn(batch, length, 3 * heads * width, generator=generator).to(device)
    upstream = torch.randn(batch, heads, length, width, generator=generator).to(device)
    results = []
    for way in (attend, attend, written_out_causal_attention):
        leaf = base.clone().requires_grad_()
        q, k, v = (part.view(batch, length, heads, width).transpose(1, 2) for part in leaf.chunk(3, dim=-1))
        output = way(q, k, v)
        output.backward(upstream)
        results.append((output.detach(), leaf.grad))
    (ours, ours_grad), (again, again_grad), (theirs, theirs_grad) = results
    return {"output": (ours - theirs).abs().max().item(), "grad": (ours_grad - theirs_grad).abs().max().item(),
            "scale": theirs_grad.abs().max().item(), "repeatable": bool(torch.equal(ours, again) and torch.equal(ours_grad, again_grad)),
            "merged_heads_are_a_view": ours.transpose(1, 2).is_contiguous()}


def shared_difference(attend, device: str) -> float:
    """MSSA's case, one tensor as queries, keys and values: the gradient sums the three parts."""
    x = torch.randn(2, 10, 2, 16, generator=torch.Generator().manual_seed(3)).to(device).transpose(1, 2)
    ours, theirs = x.clone().requires_grad_(), x.clone().requires_grad_()
    attend(ours, ours, ours).square().sum().backward()
    written_out_causal_attention(theirs, theirs, theirs).square().sum().backward()
    return (ours.grad - theirs.grad).abs().max().item()


def check(attend, device: str) -> None:
    for shape in SHAPES:
        row = differences(attend, *shape, device)
        assert row["output"] < 1e-5, (shape, row)
        assert row["grad"] < 1e-5 * max(1.0, row["scale"]), (shape, row)
        assert row["repeatable"], shape
        assert row["merged_heads_are_a_view"], shape
    assert shared_difference(attend, device) < 1e-5


@needs_triton
def test_kernels_in_triton_interpreter_match_the_written_out_softmax():
    environment = {**os.environ, "TRITON_INTERPRET": "1",
                   "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO / "src"), os.environ.get("PYTHONPATH")]))}
    completed = subprocess.run([sys.executable, "-c", INTERPRETED], cwd=REPO, env=environment, capture_output=True, text=True,
                               timeout=600)
    assert completed.returncode == 0, completed.stderr[-4000:]
    assert "interpreted: InterpretedFunction" in completed.stdout


@needs_cuda
@needs_triton
def test_compiled_kernels_match_the_written_out_softmax_on_a_gpu():
    check(small_attention.causal_attention, "cuda")


@needs_cuda
@needs_triton
def test_a_captured_graph_replays_the_same_bits():
    batch, heads, length, width = 8, 4, 80, 16
    generator = torch.Generator().manual_seed(0)
    base = torch.randn(batch, length, 3 * heads * width, generator=generator).cuda().requires_grad_()
    upstream = torch.randn(batch, heads, length, width, generator=generator).cuda()

    def step():
        if base.grad is not None:
            base.grad.zero_()
        q, k, v = (part.view(batch, length, heads, width).transpose(1, 2) for part in base.chunk(3, dim=-1))
        output = small_attention.causal_attention(q, k, v)
        output.backward(upstream)
        return output

    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        eager = step().detach().clone()
        eager_grad = base.grad.clone()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            captured = step()
    torch.cuda.current_stream().wait_stream(stream)
    for _ in range(3):
        graph.replay()
    torch.cuda.synchronize()
    assert torch.equal(captured, eager)
    assert torch.equal(base.grad, eager_grad)


@needs_cuda
@pytest.mark.parametrize("architecture", ARCHITECTURES)
def test_graph_loop_agrees_with_the_per_step_loop_on_a_gpu(architecture):
    """Same prompts, same arithmetic in another rounding order (multi-tensor kernels): the curves agree to
    float32 rounding, and the graph replays are reproducible to the bit."""
    per_step, per_step_weights = trained(train_per_step, architecture, record_every=1, device="cuda")
    graph, graph_weights = trained(train_static, architecture, record_every=1, device="cuda", capture=True, chunk_steps=3, workers=0)
    again, _ = trained(train_static, architecture, record_every=1, device="cuda", capture=True, chunk_steps=3, workers=0)
    pd.testing.assert_frame_equal(graph, again, check_exact=True)
    np.testing.assert_allclose(graph["loss"], per_step["loss"], rtol=1e-4)
    for name in per_step_weights:
        torch.testing.assert_close(graph_weights[name], per_step_weights[name], rtol=1e-4, atol=1e-5)


@needs_cuda
@pytest.mark.parametrize("chunk_steps", [2, 4])
@pytest.mark.parametrize("architecture", ARCHITECTURES)
def test_on_a_gpu_a_captured_run_stopped_at_every_chunk_and_resumed_gives_the_uninterrupted_curve(architecture, chunk_steps, tmp_path):
    """Stopped at every chunk's start and continued by a new start with a new model: a continued run captures its graph
    `WARMUP_STEPS` steps after where it continued, so some steps run eagerly that the run that never stopped replayed
    (chunks of 2 continue inside the warm-up, chunks of 4 after it). The curve and the weights are the same bits."""
    def train(checkpoint=None):
        return trained(train_static, architecture, record_every=1, device="cuda", capture=True, chunk_steps=chunk_steps,
                       workers=0, checkpoint=checkpoint)

    (curve, weights), stops = stopped_at_every_save_point(train, tmp_path / "run.checkpoint")
    assert stops == list(range(chunk_steps, RUN["steps"], chunk_steps))
    reference, reference_weights = train()
    pd.testing.assert_frame_equal(curve, reference, check_exact=True)
    for name, tensor in reference_weights.items():
        assert torch.equal(weights[name], tensor), name
