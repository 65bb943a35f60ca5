"""icdenoise.maths.small_attention's Triton kernels on the CPU, through Triton's interpreter: the unit tests' `check`
(tests/unit/maths/test_small_attention.py) against the written-out softmax, forward and backward. It needs a process of
its own: Triton reads TRITON_INTERPRET when it is imported, and its own library functions are defined then."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CHECK = ("import sys; sys.path.insert(0, 'tests/unit/maths'); import test_small_attention as unit; "
         "from icdenoise.maths import small_attention; unit.check(small_attention.causal_attention, 'cpu'); "
         "print('interpreted:', type(small_attention._forward).__name__)")


@pytest.mark.skipif(importlib.util.find_spec("triton") is None, reason="needs Triton (the test extra installs it)")
def test_kernels_in_triton_interpreter_match_the_written_out_softmax():
    environment = {**os.environ, "TRITON_INTERPRET": "1",
                   "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO / "src"), os.environ.get("PYTHONPATH")]))}
    completed = subprocess.run([sys.executable, "-c", CHECK], cwd=REPO, env=environment, capture_output=True, text=True, timeout=600)
    assert completed.returncode == 0, completed.stderr[-4000:]
    assert "interpreted: InterpretedFunction" in completed.stdout
