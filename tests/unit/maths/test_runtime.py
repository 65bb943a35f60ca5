"""Device selection: auto falls back to the CPU, an explicit cuda without a GPU is an error."""

import pytest
import torch

from icdenoise.maths.runtime import resolve_device, use_threads


def test_auto_and_cpu_resolve_without_a_gpu():
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert resolve_device("auto").type == expected
    assert resolve_device("cpu").type == "cpu"


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")
def test_cuda_without_gpu_is_an_error_not_a_fallback():
    with pytest.raises(RuntimeError, match="device: cuda"):
        resolve_device("cuda")


def test_unknown_device_is_rejected():
    with pytest.raises(ValueError, match="auto, cpu, cuda|'auto', 'cpu', 'cuda'"):
        resolve_device("tpu")


def test_use_threads_sets_torch_threads():
    before = torch.get_num_threads()
    try:
        for threads in (2, 1):
            use_threads(threads)
            assert torch.get_num_threads() == threads
    finally:
        torch.set_num_threads(before)
