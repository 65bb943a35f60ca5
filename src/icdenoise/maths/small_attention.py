"""Causal softmax attention of short sequences on a GPU: one Triton program per (prompt, head), forward and backward.

For queries, keys and values q_i, k_j, v_j ∈ R^p of one head (i, j = 1..N), the output and its gradients are

    s_ij = q_i·k_j / √p for j ≤ i (−∞ otherwise),  P = softmax_j(s),  o_i = Σ_j P_ij v_j,
    dV = Pᵀ dO,  dP = dO Vᵀ,  dS_ij = P_ij (dP_ij − Σ_l P_il dP_il),  dQ = dS K / √p,  dK = dSᵀ Q / √p,

the softmax's Jacobian written out (Σ_l P_il dP_il = dO_i·o_i). At the mssa study's sizes (N = 2·40 tokens, p = 16 at
the paper's scale) torch's float32 attention on a GPU, the memory-efficient kernel, pads each head to 64 × 64 tiles of
width 32: 57 µs forward and 92 µs backward per layer of 64 prompts × 8 heads on an H100, 4.8 of a paper-scale MSSA
step's 8.6 ms (icdenoise.studies.mssa.tools.kernels, docs/performance.md). Here a program holds one head's keys and values (N padded
to a power of two ≥ 16) and takes its query rows `ROWS` at a time: the whole row of scores is in registers, so the
softmax needs no running maximum, the backward recomputes P instead of storing it, and it sums dK and dV over the row
blocks in a fixed order, with no two programs writing the same gradient: the result is the same bits from run to run.
The products are float32 by default (`PRECISION = "ieee"`, no TF32), as everywhere in the pipeline
(`runtime.use_full_float32_precision`). On an H100 (2026-11-27, icdenoise.studies.mssa.tools.kernels): 0.113 ms for one layer's
forward and backward against torch's 0.178 ms, and a paper-scale MSSA step 6.73 ms against 8.53 ms. The other
precisions, measured the same way: "tf32x3" (three TF32 products, float32's accuracy) 0.133 ms, slower; "tf32"
0.041 ms and a 4.59 ms step, but each output and gradient off by about 1e-3 of its largest value, against 3e-7 to
5e-7 for "ieee" (both against the formula in float64).

Triton compiles the kernels once for each length and width, in the first call, and keeps them in its cache
(~/.triton/cache). In a fresh cache and process, the first paper-scale run took 9.5 s to its first record and the next
model's run 1.1 s (icdenoise.studies.mssa.tools.step_bench); the first also pays for CUDA's start.

`supports(q)` says whether a call can run here: a CUDA float32 tensor, Triton importable, N ≤ `MAX_LENGTH` and
p ≤ `MAX_WIDTH`. `causal_attention` is differentiable (`torch.autograd.Function`), and its launches can be captured in
a CUDA graph once compiled (a first call outside the capture compiles them). With TRITON_INTERPRET=1 set before Triton
is imported, the same kernels run on CPU tensors through Triton's interpreter, which is how the tests check them on a
machine without a GPU (tests/integration/test_gpu_kernels.py).
"""

from __future__ import annotations

import math

import torch

try:
    import triton
    import triton.language as tl
except ImportError:  # torch's CPU wheels come without Triton: `supports` is then False
    triton = None

MAX_LENGTH = 128
MAX_WIDTH = 64
ROWS = 16  # query rows a program holds at once
WARPS = 2  # warps a program runs on (2 was the fastest of 2, 4 and 8 at 16 rows, docs/performance.md)
PRECISION = "ieee"  # Triton's input_precision of the products: float32 FMA, no tensor cores


def supports(queries: torch.Tensor) -> bool:
    """Whether `causal_attention` runs for (B, H, N, p) tensors like `queries`."""
    length, width = queries.shape[-2:]
    return triton is not None and queries.is_cuda and queries.dtype == torch.float32 and length <= MAX_LENGTH and width <= MAX_WIDTH


def block(size: int) -> int:
    """A kernel dimension for `size`: the next power of two, at least 16 (Triton's smallest matrix product)."""
    return max(16, 1 << (size - 1).bit_length())


if triton is not None:

    @triton.jit
    def _pointers(base, stride_b, stride_h, stride_n, program, heads, rows, columns):
        """Pointers to `rows` × `columns` of the head `program` of a (B, H, N, p) tensor with unit last stride."""
        prompt, head = program // heads, program % heads
        return base + prompt * stride_b + head * stride_h + rows[:, None] * stride_n + columns[None, :]

    @triton.jit
    def _weights(q, k, rows, keys, scale, PRECISION: tl.constexpr):
        """P = softmax over keys j ≤ i of q_i·k_j·scale for the query rows `rows`, (ROWS, BLOCK)."""
        scores = tl.dot(q, tl.trans(k), input_precision=PRECISION) * scale
        scores = tl.where(keys[None, :] <= rows[:, None], scores, float("-inf"))
        exponentials = tl.exp(scores - tl.max(scores, axis=1)[:, None])
        return exponentials / tl.sum(exponentials, axis=1)[:, None]

    @triton.jit
    def _forward(q_ptr, k_ptr, v_ptr, o_ptr, q_b, q_h, q_n, k_b, k_h, k_n, v_b, v_h, v_n, o_b, o_h, o_n,
                 heads, width, scale, LENGTH: tl.constexpr, BLOCK: tl.constexpr, WIDTH: tl.constexpr, ROWS: tl.constexpr,
                 PRECISION: tl.constexpr):
        program = tl.program_id(0)
        keys, columns = tl.arange(0, BLOCK), tl.arange(0, WIDTH)
        whole = (keys[:, None] < LENGTH) & (columns[None, :] < width)
        k = tl.load(_pointers(k_ptr, k_b, k_h, k_n, program, heads, keys, columns), mask=whole, other=0.0)
        v = tl.load(_pointers(v_ptr, v_b, v_h, v_n, program, heads, keys, columns), mask=whole, other=0.0)
        for first in range(0, LENGTH, ROWS):  # the query rows a block at a time: a program's registers hold ROWS × BLOCK
            rows = first + tl.arange(0, ROWS)
            part = (rows[:, None] < LENGTH) & (columns[None, :] < width)
            q = tl.load(_pointers(q_ptr, q_b, q_h, q_n, program, heads, rows, columns), mask=part, other=0.0)
            output = tl.dot(_weights(q, k, rows, keys, scale, PRECISION), v, input_precision=PRECISION)
            tl.store(_pointers(o_ptr, o_b, o_h, o_n, program, heads, rows, columns), output, mask=part)

    @triton.jit
    def _backward(q_ptr, k_ptr, v_ptr, do_ptr, dq_ptr, dk_ptr, dv_ptr, q_b, q_h, q_n, k_b, k_h, k_n, v_b, v_h, v_n,
                  do_b, do_h, do_n, g_b, g_h, g_n, heads, width, scale, LENGTH: tl.constexpr, BLOCK: tl.constexpr,
                  WIDTH: tl.constexpr, ROWS: tl.constexpr, PRECISION: tl.constexpr):
        program = tl.program_id(0)
        keys, columns = tl.arange(0, BLOCK), tl.arange(0, WIDTH)
        whole = (keys[:, None] < LENGTH) & (columns[None, :] < width)
        k = tl.load(_pointers(k_ptr, k_b, k_h, k_n, program, heads, keys, columns), mask=whole, other=0.0)
        v = tl.load(_pointers(v_ptr, v_b, v_h, v_n, program, heads, keys, columns), mask=whole, other=0.0)
        keys_grad = tl.zeros((BLOCK, WIDTH), dtype=tl.float32)
        values_grad = tl.zeros((BLOCK, WIDTH), dtype=tl.float32)
        for first in range(0, LENGTH, ROWS):  # a fixed order of row blocks: the sums into dK and dV are the same bits
            rows = first + tl.arange(0, ROWS)
            part = (rows[:, None] < LENGTH) & (columns[None, :] < width)
            q = tl.load(_pointers(q_ptr, q_b, q_h, q_n, program, heads, rows, columns), mask=part, other=0.0)
            upstream = tl.load(_pointers(do_ptr, do_b, do_h, do_n, program, heads, rows, columns), mask=part, other=0.0)
            weights = _weights(q, k, rows, keys, scale, PRECISION)
            weights_grad = tl.dot(upstream, tl.trans(v), input_precision=PRECISION)
            scores_grad = weights * (weights_grad - tl.sum(weights * weights_grad, axis=1)[:, None]) * scale
            tl.store(_pointers(dq_ptr, g_b, g_h, g_n, program, heads, rows, columns),
                     tl.dot(scores_grad, k, input_precision=PRECISION), mask=part)
            keys_grad += tl.dot(tl.trans(scores_grad), q, input_precision=PRECISION)
            values_grad += tl.dot(tl.trans(weights), upstream, input_precision=PRECISION)
        tl.store(_pointers(dk_ptr, g_b, g_h, g_n, program, heads, keys, columns), keys_grad, mask=whole)
        tl.store(_pointers(dv_ptr, g_b, g_h, g_n, program, heads, keys, columns), values_grad, mask=whole)


def head_major(batch: int, heads: int, length: int, width: int, like: torch.Tensor) -> torch.Tensor:
    """An empty (B, H, N, p) tensor laid out as (B, N, H, p), so that merging its heads back is a view."""
    return torch.empty((batch, length, heads, width), dtype=like.dtype, device=like.device).transpose(1, 2)


def unit_last_stride(tensor: torch.Tensor) -> torch.Tensor:
    return tensor if tensor.stride(-1) == 1 else tensor.contiguous()


def launch_options(length: int, width: int, rows: int, warps: int, precision: str) -> dict:
    return {"LENGTH": length, "BLOCK": block(length), "WIDTH": block(width), "ROWS": min(rows, block(length)), "num_warps": warps,
            "PRECISION": precision}


class CausalAttention(torch.autograd.Function):
    """The module's attention with the gradients of its docstring."""

    @staticmethod
    def forward(ctx, queries, keys, values, rows, warps, precision):
        queries, keys, values = (unit_last_stride(t) for t in (queries, keys, values))
        batch, heads, length, width = queries.shape
        output = head_major(batch, heads, length, width, queries)
        _forward[(batch * heads,)](queries, keys, values, output, *queries.stride()[:3], *keys.stride()[:3], *values.stride()[:3],
                                   *output.stride()[:3], heads, width, 1 / math.sqrt(width), **launch_options(length, width, rows, warps, precision))
        ctx.save_for_backward(queries, keys, values)
        ctx.options = rows, warps, precision
        return output

    @staticmethod
    def backward(ctx, output_grad):
        queries, keys, values = ctx.saved_tensors
        output_grad = unit_last_stride(output_grad)
        batch, heads, length, width = queries.shape
        grads = [head_major(batch, heads, length, width, queries) for _ in range(3)]
        _backward[(batch * heads,)](queries, keys, values, output_grad, *grads, *queries.stride()[:3], *keys.stride()[:3],
                                    *values.stride()[:3], *output_grad.stride()[:3], *grads[0].stride()[:3], heads, width,
                                    1 / math.sqrt(width), **launch_options(length, width, *ctx.options))
        return (*grads, None, None, None)


def causal_attention(queries: torch.Tensor, keys: torch.Tensor, values: torch.Tensor, rows: int = ROWS, warps: int = WARPS,
                     precision: str = PRECISION) -> torch.Tensor:
    """(B, H, N, p) each -> (B, H, N, p), laid out as (B, N, H, p): o_i = Σ_{j ≤ i} softmax_j(q_i·k_j/√p) v_j, the
    query rows `rows` at a time (a power of two ≥ 16), each program `warps` warps, the products at Triton's
    `precision` ("ieee", "tf32x3" or "tf32")."""
    if triton is None:
        raise RuntimeError("small_attention needs Triton, which torch's CUDA wheels bring; check supports() first")
    return CausalAttention.apply(queries, keys, values, rows, warps, precision)
