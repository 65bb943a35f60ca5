"""icdenoise.maths.small_attention where no kernel is compiled: its sizes, when it runs, and the CPU's attention. Its
kernels are checked against the written-out softmax in tests/integration/test_gpu_kernels.py: Triton's compiler and
its interpreter's setup start processes, which unit tests do not."""

import torch

from icdenoise.maths import small_attention
from icdenoise.studies.mssa.transformers import causal_attention


def test_block_is_the_next_power_of_two_at_least_16():
    assert [small_attention.block(n) for n in (1, 3, 16, 17, 80, 128)] == [16, 16, 16, 32, 128, 128]


def test_supports_only_cuda_float32_heads_that_fit_one_program():
    assert not small_attention.supports(torch.zeros(2, 2, 80, 16))  # a CPU tensor
    assert not small_attention.supports(torch.zeros(2, 2, small_attention.MAX_LENGTH + 1, 16))


def test_the_cpu_keeps_torchs_kernel():
    """On the CPU the models' attention is torch's scaled_dot_product_attention, bit for bit."""
    q, k, v = (torch.randn(2, 3, 12, 8, generator=torch.Generator().manual_seed(i)) for i in range(3))
    assert torch.equal(causal_attention(q, k, v), torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True))
