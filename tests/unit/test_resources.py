"""Job resources: the estimates cover the paper config's measured peaks, every rule declares them,
and SLURM placement follows the environment."""

import math
import os
import re
from pathlib import Path

import pandas as pd
import pytest

from icdenoise.architectures import DENOISES
from icdenoise.cluster import placement, training_gpus
from icdenoise.codedeps import imports_torch, rule_scripts
from icdenoise.config import load_yaml
from icdenoise.resources import (MEMORY_HEADROOM, RUNTIME_FLOOR_MINUTES, RUNTIME_HEADROOM, TRAINING_SECONDS_PER_WORK,
                                 JobEstimate, job_estimate, machine_cores)

REPO = Path(__file__).resolve().parents[2]


def rule_blocks() -> dict[str, str]:
    blocks = {}
    for path in sorted((REPO / "workflow" / "rules").rglob("*.smk")):
        for block in re.split(r"^rule ", path.read_text(), flags=re.M)[1:]:
            blocks[block.split(":", 1)[0].strip()] = block
    return blocks


@pytest.fixture(scope="module")
def measured_with_estimates():
    """Each paper-config job's benchmark (tests/data/paper_benchmarks.tsv, scripts/calibrate_resources.py)
    with its raw estimate."""
    config = load_yaml(REPO / "config" / "config.yaml")
    table = pd.read_csv(REPO / "tests" / "data" / "paper_benchmarks.tsv", sep="\t", dtype={"L": "string", "tokens": "string"})
    scripts = rule_scripts(REPO)
    rows = []
    for row in table.itertuples():
        wildcards = {key: getattr(row, key) for key in ("case", "L", "model", "tokens") if isinstance(getattr(row, key), str)}
        estimate = job_estimate(row.rule, wildcards, config, imports_torch(scripts[row.rule]))
        rows.append((f"{row.rule} {wildcards}", row.seconds, row.max_rss_mb, estimate))
    return rows


def test_the_calibration_table_has_every_compute_rule_of_the_paper_config(measured_with_estimates):
    measured_rules = {label.split()[0] for label, *_ in measured_with_estimates}
    assert measured_rules == set(rule_scripts(REPO))
    assert len(measured_with_estimates) > 100


def test_raw_estimates_cover_every_measured_peak_and_wall_time(measured_with_estimates):
    for label, seconds, megabytes, estimate in measured_with_estimates:
        assert estimate.megabytes >= megabytes, f"{label}: {megabytes:.0f} MB measured, {estimate.megabytes:.0f} estimated"
        assert estimate.seconds >= seconds, f"{label}: {seconds:.1f} s measured, {estimate.seconds:.1f} estimated"


def test_requests_add_the_stated_headroom():
    short, long = JobEstimate("a", 100.0, 10.0), JobEstimate("b", 1000.0, 600.0)
    assert short.mem_mb == math.ceil(MEMORY_HEADROOM * 100) and long.mem_mb == math.ceil(MEMORY_HEADROOM * 1000)
    assert short.runtime_minutes == RUNTIME_FLOOR_MINUTES
    assert long.runtime_minutes == math.ceil(RUNTIME_HEADROOM * 10)


def test_training_time_grows_with_epochs_seeds_and_context_length():
    config = load_yaml(REPO / "config" / "config.yaml")
    base = job_estimate("train_ensemble", {"case": "gmm", "L": "500", "model": "softmax"}, config, True)
    longer = job_estimate("train_ensemble", {"case": "gmm", "L": "1000", "model": "softmax"}, config, True)
    config["training"]["epochs"]["gmm"] *= 2
    config["training"]["seeds"] = [*config["training"]["seeds"], 6, 7]
    costlier = job_estimate("train_ensemble", {"case": "gmm", "L": "500", "model": "softmax"}, config, True)
    assert longer.seconds > base.seconds and longer.megabytes > base.megabytes
    assert costlier.seconds > 2 * base.seconds - 20


def test_every_architecture_has_a_training_cost():
    assert set(TRAINING_SECONDS_PER_WORK) == set(DENOISES)


def test_every_rule_with_a_script_declares_its_resources():
    scripts = rule_scripts(REPO)
    assert len(scripts) > 20
    for name, script in scripts.items():
        block = rule_blocks()[name]
        declared = re.search(r'^    resources:\n\s+\*\*job_resources\("(.+?)"\)', block, flags=re.M)
        assert declared, f"rule {name} declares no resources"
        assert REPO / "workflow" / "scripts" / declared.group(1) == script, name


@pytest.mark.parametrize("device, environ, expected", [
    ("cpu", {}, {"gpu": 0}),
    ("auto", {}, {"gpu": 0}),
    ("cuda", {}, {"gpu": 1}),
    ("auto", {"ICDENOISE_GPU_PARTITION": "gpu"}, {"gpu": 1, "slurm_partition": "gpu"}),
    ("cpu", {"ICDENOISE_GPU_PARTITION": "gpu", "SBATCH_PARTITION": "short"}, {"gpu": 0, "slurm_partition": "short"}),
    ("cuda", {"SBATCH_PARTITION": "short", "SBATCH_ACCOUNT": "lab"}, {"gpu": 1, "slurm_partition": "short", "slurm_account": "lab"}),
])
def test_training_jobs_ask_for_a_gpu_exactly_when_they_will_use_one(device, environ, expected):
    assert placement("train_ensemble", device, environ) == expected
    assert training_gpus(device, environ) == expected["gpu"]


def test_other_jobs_get_the_partition_and_account_but_never_a_gpu():
    environ = {"ICDENOISE_GPU_PARTITION": "gpu", "SBATCH_PARTITION": "short", "SBATCH_ACCOUNT": "lab", "SBATCH_QOS": ""}
    assert placement("evaluate_bayes", "cuda", environ) == {"slurm_partition": "short", "slurm_account": "lab"}
    assert placement("plot_fig3", "auto", {"SBATCH_PARTITION": ""}) == {}


def test_machine_cores_is_at_most_what_the_os_reports():
    assert 1 <= machine_cores() <= os.cpu_count()
