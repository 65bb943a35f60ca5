"""Config validation in a process of its own, as Snakemake runs it at every start: it loads the registered
studies without torch or matplotlib, and asks torch about a GPU (in a child process) only when a local
run wants CUDA."""

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.integration

VALIDATE = """
import json, sys
from pathlib import Path
from icdenoise.pipeline.config import ConfigError, load_yaml, validate_config
config = load_yaml(Path(sys.argv[1]) / "config" / "config.yaml")
config["execution"]["training"]["device"] = sys.argv[2]
try:
    studies = validate_config(config, Path(sys.argv[1]) / "workflow" / "schemas", local_execution=True)
    problem = None
except ConfigError as error:
    studies, problem = {}, str(error)
print(json.dumps({"studies": list(studies), "problem": problem,
                  "heavy": sorted(name for name in ("torch", "matplotlib", "seaborn") if name in sys.modules)}))
"""


def validate(repo, device: str) -> dict:
    result = subprocess.run([sys.executable, "-c", VALIDATE, str(repo), device], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_validating_the_paper_config_loads_its_studies_but_no_torch_or_matplotlib(repo):
    seen = validate(repo, "auto")
    assert seen["problem"] is None and len(seen["studies"]) >= 4
    assert seen["heavy"] == []


def test_cuda_without_a_gpu_is_refused_by_name_and_this_process_still_has_no_torch(repo):
    import torch

    if torch.cuda.is_available():
        pytest.skip("needs a machine without CUDA")
    seen = validate(repo, "cuda")
    assert "execution.training.device: cuda, but torch sees no CUDA GPU" in seen["problem"]
    assert seen["heavy"] == []
