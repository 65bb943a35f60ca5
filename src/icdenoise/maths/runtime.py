"""Where computations run: device choice and thread count."""

from __future__ import annotations

import torch

DEVICES = ("auto", "cpu", "cuda")


def resolve_device(device: str) -> torch.device:
    """Map the config's ``device`` (auto | cpu | cuda) to a torch device.

    ``auto`` picks CUDA when available, else the CPU; ``cuda`` without a GPU is an error rather
    than a silent fallback. On a GPU, TF32 is turned off (`use_full_float32_precision`).
    """
    if device not in DEVICES:
        raise ValueError(f"device must be one of {DEVICES}, got {device!r}")
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("device: cuda was requested but torch sees no CUDA GPU; use device: auto or cpu")
    if device == "cuda":
        use_full_float32_precision()
    return torch.device(device)


def use_full_float32_precision() -> None:
    """The TF32 policy: off. float32 matrix products on a GPU keep their 24-bit mantissa instead of
    TF32's 10 bits, so GPU and CPU runs differ by rounding order only (scripts/gpu_check.py)."""
    torch.set_float32_matmul_precision("highest")
    torch.backends.cudnn.allow_tf32 = False


def use_threads(threads: int) -> None:
    """Make torch use exactly `threads` intra-op threads (the rule's ``threads:``)."""
    torch.set_num_threads(threads)
