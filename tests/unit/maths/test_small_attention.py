"""The Triton attention of icdenoise.maths.small_attention against the written-out softmax (an independent computation,
torch's own operations), forward and backward, on a GPU as compiled kernels, captured in a CUDA graph and replayed.
`check` runs on the CPU too, through Triton's interpreter, in a process of its own
(tests/integration/test_small_attention_interpreted.py)."""

import pytest
import torch

from icdenoise.maths import small_attention
from icdenoise.studies.mssa.transformers import causal_attention, written_out_causal_attention

needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
needs_triton = pytest.mark.skipif(small_attention.triton is None, reason="needs Triton (the test extra installs it)")
SHAPES = [(2, 3, 80, 16), (2, 4, 32, 8), (1, 2, 5, 3), (2, 2, 128, 64), (3, 1, 17, 16)]  # (B, H, N, p): padded or not
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


def test_block_is_the_next_power_of_two_at_least_16():
    assert [small_attention.block(n) for n in (1, 3, 16, 17, 80, 128)] == [16, 16, 16, 32, 128, 128]


def test_supports_only_cuda_float32_heads_that_fit_one_program():
    assert not small_attention.supports(torch.zeros(2, 2, 80, 16))  # a CPU tensor
    assert not small_attention.supports(torch.zeros(2, 2, small_attention.MAX_LENGTH + 1, 16))


def test_the_cpu_keeps_torchs_kernel():
    """On the CPU the models' attention is torch's scaled_dot_product_attention, bit for bit."""
    q, k, v = (torch.randn(2, 3, 12, 8, generator=torch.Generator().manual_seed(i)) for i in range(3))
    assert torch.equal(causal_attention(q, k, v), torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True))


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
