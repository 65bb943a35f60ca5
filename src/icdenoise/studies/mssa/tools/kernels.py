"""Where a paper-scale MSSA training step's GPU time goes, and what several runs on one GPU would cost: timing only,
no job of the pipeline runs this (docs/performance.md, "On a GPU").

    python3 -m icdenoise.studies.mssa.tools.kernels --out kernels/          # on a machine with a CUDA GPU
    python3 -m icdenoise.studies.mssa.tools.kernels --device cpu --tiny --out /tmp/kernels   # the plumbing, on a CPU

Every model of config/mssa_paper_scale.yaml (merged over config/config.yaml) is built from seed 0 with one batch of
`sample_prompts`, and its whole step (loss, backward, clipping, `Adam.step_with_factors`, as `train_static` runs it)
is captured as one CUDA graph on a GPU. Four measurements, each a table (printed, and as CSV under --out):

- `graphs.csv`: each model's graph replayed alone, ms a step (the median of `--repeats` timings of `--steps` replays),
  and MSSA's with its attention computed other ways (as in `attention.csv`): torch's kernel, as before
  `icdenoise.maths.small_attention`, and `small_attention` with TF32 products, three-pass (tf32x3) and one-pass, the
  latter also with cuBLAS's TF32 matrix products;
- `kernels.csv`: torch's profiler over `--profile-steps` eager steps of MSSA, each kernel's count and milliseconds per
  step, largest first;
- `attention.csv`: the causal attention of one layer, forward and backward, at the paper's shape, each way of computing
  it captured as a graph: `small_attention` (the pipeline's on a GPU) at several row blocks, warps and product
  precisions, torch's `scaled_dot_product_attention` with its default choice and each backend forced, the written-out
  softmax on strided and contiguous heads, and FlexAttention compiled; with the largest difference of the output and
  of each gradient from the written-out softmax in float64, relative to its largest magnitude;
- `sharing.csv`: the six graphs of Figure 6's runs (each model on each task) replayed one after another on one stream,
  and each on a stream of its own, ms per round of six steps; and MSSA's step at batch 64 × (1, 2, 6), ms a step.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time
from pathlib import Path

import pandas as pd
import torch
from torch import nn
from torch.nn import functional as F

from icdenoise.maths import small_attention
from icdenoise.maths.adam import Adam
from icdenoise.maths.runtime import resolve_device
from icdenoise.studies.mssa import transformers
from icdenoise.studies.mssa.regression import TASKS, sample_prompts
from icdenoise.studies.mssa.tools import PAPER_SCALE, regression_block
from icdenoise.studies.mssa.transformers import build_model, regression_loss, written_out_causal_attention

TABLES = ("graphs", "kernels", "attention", "sharing")
TINY = dict(width=16, heads=2, batch=8)
TINY_LAYERS = 2


class Step:
    """One model's whole training step on fixed tensors, eager (`run`) or, on a GPU, as a CUDA graph (`replay`)."""

    def __init__(self, architecture: str, block: dict, layers: int, task: str, batch: int, device: torch.device):
        self.model = build_model(architecture, block["d"], block["width"], block["heads"], layers, block["examples"], 0).to(device)
        self.optimiser = Adam(self.model.parameters(), lr=block["learning_rate"])
        self.factors = self.optimiser.step_factors(1)[0]
        xs, ys = sample_prompts(task, block["d"], block["nonzeros"], batch, block["examples"], 0)
        self.xs, self.ys, self.clip = xs.to(device), ys.to(device), block["clip"]
        self.graph = None
        if device.type == "cuda":
            stream = torch.cuda.Stream(device)
            stream.wait_stream(torch.cuda.current_stream(device))
            with torch.cuda.stream(stream):
                for _ in range(3):
                    self.run()
                self.graph = torch.cuda.CUDAGraph()
                with torch.cuda.graph(self.graph):
                    self.run()
            torch.cuda.current_stream(device).wait_stream(stream)

    def run(self) -> None:
        self.optimiser.zero_grad()
        regression_loss(self.model, self.xs, self.ys).backward()
        nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
        self.optimiser.step_with_factors(self.factors)

    def replay(self) -> None:
        self.graph.replay() if self.graph is not None else self.run()


def timed_ms(work, steps: int, repeats: int, device: torch.device, per: int = 1) -> float:
    """Median over `repeats` of the wall milliseconds of `steps` calls of `work`, per call and per `per`."""
    times = []
    for _ in range(repeats):
        synchronize(device)
        started = time.perf_counter()
        for _ in range(steps):
            work()
        synchronize(device)
        times.append((time.perf_counter() - started) * 1e3 / steps / per)
    return statistics.median(times)


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def kernel_table(step: Step, steps: int, device: torch.device) -> pd.DataFrame:
    """Each kernel (or, on a CPU, operator) of `steps` eager steps: calls and milliseconds per step."""
    activities = [torch.profiler.ProfilerActivity.CPU] + ([torch.profiler.ProfilerActivity.CUDA] if device.type == "cuda" else [])
    with torch.profiler.profile(activities=activities) as profile:
        for _ in range(steps):
            step.run()
        synchronize(device)
    rows = []
    for event in profile.key_averages():
        total = event.device_time_total if device.type == "cuda" else event.self_cpu_time_total
        if total > 0 and (device.type != "cuda" or event.device_type == torch.autograd.DeviceType.CUDA):
            rows.append({"kernel": event.key[:120], "calls_per_step": event.count / steps, "ms_per_step": total / 1e3 / steps})
    return pd.DataFrame(rows).sort_values("ms_per_step", ascending=False).reset_index(drop=True)


def attention_ways() -> dict:
    """name -> f(q, k, v) computing the causal attention of `transformers.causal_attention`."""
    backends = torch.nn.attention.SDPBackend

    def forced(backend):
        def attend(q, k, v):
            with torch.nn.attention.sdpa_kernel(backend):
                return F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return attend

    def contiguous_written_out(q, k, v):
        batch, heads, length, width = q.shape
        flat = [t.reshape(batch * heads, length, width) for t in (q, k, v)]
        return written_out_causal_attention(*flat).view(batch, heads, length, width)

    def triton_way(rows, warps, precision):
        return lambda q, k, v: small_attention.causal_attention(q, k, v, rows=rows, warps=warps, precision=precision)

    return {**{f"small attention, {rows} rows, {warps} warps, {precision}": triton_way(rows, warps, precision)
               for rows, warps, precision in ((16, 2, "ieee"), (16, 4, "ieee"), (32, 4, "ieee"), (16, 2, "tf32x3"),
                                              (16, 4, "tf32x3"), (32, 4, "tf32x3"), (64, 4, "tf32x3"), (16, 2, "tf32"))},
            "sdpa default": lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
            "sdpa efficient": forced(backends.EFFICIENT_ATTENTION), "sdpa math": forced(backends.MATH),
            "sdpa cudnn": forced(backends.CUDNN_ATTENTION), "written out": written_out_causal_attention,
            "written out, contiguous heads": contiguous_written_out, "flex attention, compiled": flex_attention_way()}


def flex_attention_way():
    """torch's FlexAttention with a causal block mask, compiled (Triton kernels on a GPU)."""
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention

    compiled = torch.compile(flex_attention, dynamic=False)
    masks = {}

    def attend(q, k, v):
        batch, heads, length, _ = q.shape
        key = (length, q.device)
        if key not in masks:
            masks[key] = create_block_mask(lambda b, h, i, j: j <= i, None, None, length, length, device=q.device)
        return compiled(q, k, v, block_mask=masks[key])
    return attend


def attention_table(block: dict, batch: int, steps: int, repeats: int, device: torch.device) -> pd.DataFrame:
    """One layer's attention at (batch, heads, 2·examples, width/heads), forward and backward, each way timed."""
    heads, length = block["heads"], 2 * block["examples"]
    shape = (batch, length, heads, block["width"] // heads)
    generator = torch.Generator().manual_seed(0)
    leaves = [torch.randn(shape, generator=generator).to(device).requires_grad_() for _ in range(3)]
    upstream = torch.randn(shape, generator=generator).to(device).transpose(1, 2)
    rows = []
    for name, attend in attention_ways().items():
        leaves = [leaf.detach().clone().requires_grad_() for leaf in leaves]

        def work():
            q, k, v = (leaf.transpose(1, 2) for leaf in leaves)  # strided heads, as split_heads makes them
            attend(q, k, v).backward(upstream)
        try:
            difference = reference_differences(attend, leaves, upstream)
            graph = None
            if device.type == "cuda":  # warmed up and captured on a side stream, as train_static does
                stream = torch.cuda.Stream(device)
                stream.wait_stream(torch.cuda.current_stream(device))
                with torch.cuda.stream(stream):
                    for _ in range(3):
                        work()
                    graph = torch.cuda.CUDAGraph()
                    with torch.cuda.graph(graph):
                        work()
                torch.cuda.current_stream(device).wait_stream(stream)
            rows.append({"way": name, "ms_forward_backward": timed_ms(graph.replay if graph else work, steps, repeats, device),
                         **difference})
        except Exception as error:  # a backend that does not take float32 or this shape, or a compiler missing
            rows.append({"way": name, "error": " ".join(str(error).split())[:160]})
    return pd.DataFrame(rows)


def reference_differences(attend, leaves: list[torch.Tensor], upstream: torch.Tensor) -> dict:
    """Largest |attend − the written-out softmax in float64| of the output and of the three gradients, relative to the
    reference's largest magnitude."""
    results = []
    for way, dtype in ((attend, torch.float32), (written_out_causal_attention, torch.float64)):
        copies = [leaf.detach().to(dtype).requires_grad_() for leaf in leaves]
        output = way(*(copy.transpose(1, 2) for copy in copies))
        output.backward(upstream.to(dtype))
        results.append([output.detach(), *(copy.grad for copy in copies)])
    ours, reference = results
    return {f"relative_difference_{name}": ((a.double() - b).abs().max() / b.abs().max()).item()
            for name, a, b in zip(("output", "dq", "dk", "dv"), ours, reference)}


def sharing_table(block: dict, layers_of: dict, steps: int, repeats: int, device: torch.device) -> pd.DataFrame:
    """Figure 6's six steps one after another on one stream, and on six streams, with the pipeline's attention and with
    tf32x3 products in it; MSSA's step at larger batches."""
    rows = []
    tf32x3 = attention_ways()["small attention, 16 rows, 2 warps, tf32x3"]
    for label, attend in (("", transformers.causal_attention), (", tf32x3 attention", tf32x3)):
        with patched_attention(attend):
            runs = [Step(architecture, block, layers, task, block["batch"], device) for architecture, layers in layers_of.items() for task in TASKS]
        rows.append({"what": "six runs, one stream" + label, "ms": timed_ms(lambda: [run.replay() for run in runs], steps, repeats, device)})
        if device.type == "cuda":
            rows.append({"what": "six runs, a stream each" + label, "ms": timed_ms(concurrently(runs, device), steps, repeats, device)})
    for factor in (1, 2, 6):
        step = Step("mssa", block, layers_of["mssa"], "sparse", factor * block["batch"], device)
        rows.append({"what": f"mssa, batch {factor} x {block['batch']}", "ms": timed_ms(step.replay, steps, repeats, device)})
    return pd.DataFrame(rows)


def concurrently(runs: list[Step], device: torch.device):
    """A function replaying each run's step on a stream of its own, all after the current stream's work."""
    streams = [torch.cuda.Stream(device) for _ in runs]

    def replay():
        main = torch.cuda.current_stream(device)
        for stream, run in zip(streams, runs):
            stream.wait_stream(main)
            with torch.cuda.stream(stream):
                run.replay()
        for stream in streams:
            main.wait_stream(stream)
    return replay


def graphs_table(block: dict, layers_of: dict, steps: int, repeats: int, device: torch.device) -> pd.DataFrame:
    """Each model's step as the pipeline runs it, and MSSA's with other attentions and precisions, ms a step."""
    rows = [{"model": name, "layers": layers, "attention": "as the pipeline", "ms_per_step": timed_ms(
        Step(name, block, layers, "sparse", block["batch"], device).replay, steps, repeats, device)} for name, layers in layers_of.items()]
    ways = attention_ways()
    variants = [("sdpa default", False), ("small attention, 16 rows, 2 warps, tf32x3", False),
                ("small attention, 16 rows, 2 warps, tf32", False), ("small attention, 16 rows, 2 warps, tf32", True)]
    for way, tf32_matmul in variants:
        try:
            with patched_attention(ways[way]), tf32_matrix_products(tf32_matmul):
                step = Step("mssa", block, layers_of["mssa"], "sparse", block["batch"], device)
                rows.append({"model": "mssa", "layers": layers_of["mssa"], "attention": way + (", cuBLAS TF32" if tf32_matmul else ""),
                             "ms_per_step": timed_ms(step.replay, steps, repeats, device)})
        except Exception as error:
            rows.append({"model": "mssa", "attention": way, "error": str(error).splitlines()[0][:100]})
    return pd.DataFrame(rows)


@contextlib.contextmanager
def tf32_matrix_products(on: bool):
    """cuBLAS's float32 matrix products in TF32 while the block runs, if `on`."""
    before = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = on or before
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32 = before


@contextlib.contextmanager
def patched_attention(attend):
    """The models' causal attention computed by `attend` while the block runs (their steps captured inside it)."""
    original = transformers.causal_attention
    transformers.causal_attention = attend
    try:
        yield
    finally:
        transformers.causal_attention = original


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="cuda", help="cpu, cuda or auto (default cuda)")
    parser.add_argument("--tiny", action="store_true", help=f"sizes {TINY}, {TINY_LAYERS} layers, instead of the config's")
    parser.add_argument("--steps", type=int, default=100, help="steps (or attention calls) per timing (default 100)")
    parser.add_argument("--repeats", type=int, default=5, help="timings per measurement, whose median is given (default 5)")
    parser.add_argument("--profile-steps", type=int, default=5, help="eager MSSA steps profiled (default 5)")
    parser.add_argument("--configfile", type=Path, default=PAPER_SCALE)
    parser.add_argument("--out", type=Path, required=True, help="folder of the tables, as CSV")
    parser.add_argument("--tables", nargs="+", choices=TABLES, default=list(TABLES), help="the tables measured (default all)")
    args = parser.parse_args()
    block = regression_block(args.configfile)
    layers_of = {name: options["layers"] for name, options in block["models"].items()}
    if args.tiny:
        block, layers_of = {**block, **TINY}, {name: TINY_LAYERS for name in layers_of}
    device = resolve_device(args.device)
    args.out.mkdir(parents=True, exist_ok=True)
    print(f"{device} {torch.cuda.get_device_name(device) if device.type == 'cuda' else ''}: width {block['width']}, "
          f"{block['heads']} heads, batch {block['batch']}, layers {layers_of}", flush=True)
    tables = {}
    if "graphs" in args.tables:
        tables["graphs"] = graphs_table(block, layers_of, args.steps, args.repeats, device)
    if "kernels" in args.tables:
        tables["kernels"] = kernel_table(Step("mssa", block, layers_of["mssa"], "sparse", block["batch"], device), args.profile_steps, device)
    if "attention" in args.tables:
        tables["attention"] = attention_table(block, block["batch"], args.steps, args.repeats, device)
    if "sharing" in args.tables:
        tables["sharing"] = sharing_table(block, layers_of, max(1, args.steps // 4), args.repeats, device)
    for name, table in tables.items():
        print(f"\n== {name}\n{table.head(40).to_string(index=False, float_format='{:.4g}'.format)}", flush=True)
        table.to_csv(args.out / f"{name}.csv", index=False)


if __name__ == "__main__":
    main()
