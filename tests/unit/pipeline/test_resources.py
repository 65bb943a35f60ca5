"""Job resources: the estimates cover the paper config's measured peaks, every rule with a size model is
measured, and SLURM placement follows the environment and the registry."""

import math
import os
from pathlib import Path

import pandas as pd
import pytest

from icdenoise.maths.architectures import DENOISES
from icdenoise.pipeline.cluster import placement, training_gpus
from icdenoise.pipeline.config import device_keys, load_yaml, setting, validate_config
from icdenoise.pipeline.joblog import job_files, job_of
from icdenoise.pipeline.registry import shared_and_study
from icdenoise.pipeline.resources import (
    MEMORY_HEADROOM,
    RUNTIME_FLOOR_MINUTES,
    RUNTIME_HEADROOM,
    SHARED_SIZES,
    TRAINING_SECONDS_PER_WORK,
    JobEstimate,
    job_estimate,
    machine_cores,
)

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def paper():
    return load_yaml(REPO / "config" / "config.yaml")


@pytest.fixture(scope="module")
def sizes(paper):
    """Every size model of the paper config's rules: the shared stages' and each registered study's."""
    return shared_and_study(SHARED_SIZES, validate_config(paper, REPO / "workflow" / "schemas"), "sizes")


@pytest.fixture(scope="module")
def measured_with_estimates(paper, sizes):
    """Each paper-config job's benchmark (tests/data/paper_benchmarks.tsv, scripts/calibrate_resources.py)
    with its raw estimate."""
    table = pd.read_csv(REPO / "tests" / "data" / "paper_benchmarks.tsv", sep="\t", keep_default_na=False)
    rows = []
    for row in table.itertuples():
        wildcards = job_of(f"{row.rule}/{row.wildcards}" if row.wildcards else row.rule)[1]
        rows.append((f"{row.rule} {row.wildcards}", row.seconds, row.max_rss_mb, job_estimate(row.rule, wildcards, paper, sizes)))
    return rows


STAND_INS = {  # a rule whose paper-config jobs no run may make before its claims are registered → the measured rule
    # whose jobs are the same computation at the same sizes on other data, and whose rows stand for it until the lead's
    # run measures it (scripts/calibrate_resources.py --update)
    "train_memory_induction_shakespeare": "train_memory_induction",
    "train_mssa_regression_grid_point": "train_mssa_regression",  # the same script at other learning rates and clippings
}


def test_the_calibration_table_measures_every_rule_with_a_size_model(measured_with_estimates, sizes):
    """Every rule with a size model is measured, but a confirmatory twin's (`<rule>_confirmatory`): its jobs are
    its measured original's on fresh seeds, which no paper run may draw before the twin is registered, so the
    original's rows stand for them; and likewise a rule of STAND_INS, its stand-in's rows."""
    measured_rules = {label.split()[0] for label, *_ in measured_with_estimates}
    twins = {rule: rule.removesuffix("_confirmatory") for rule in sizes
             if rule.endswith("_confirmatory") and rule.removesuffix("_confirmatory") in measured_rules}
    stood_for = {**twins, **{rule: stand_in for rule, stand_in in STAND_INS.items() if rule not in measured_rules}}
    assert set(sizes) - set(stood_for) <= measured_rules
    for rule, original in stood_for.items():
        assert original in measured_rules, f"{rule}: its stand-in {original} is not measured"
        assert sizes[rule].__qualname__ == sizes[original].__qualname__, f"{rule}: not {original}'s size model"
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
    base = job_estimate("train_ensemble", {"case": "gmm", "L": "500", "model": "softmax"}, config, SHARED_SIZES)
    longer = job_estimate("train_ensemble", {"case": "gmm", "L": "1000", "model": "softmax"}, config, SHARED_SIZES)
    config["training"]["epochs"]["gmm"] *= 2
    config["training"]["seeds"] = [*config["training"]["seeds"], 6, 7]
    costlier = job_estimate("train_ensemble", {"case": "gmm", "L": "500", "model": "softmax"}, config, SHARED_SIZES)
    assert longer.seconds > base.seconds and longer.megabytes > base.megabytes
    assert costlier.seconds > 2 * base.seconds - 20


def test_the_gaussian_check_grows_with_its_draws_and_counts_every_layer_it_flows(paper):
    from icdenoise.studies.alltoken.sizes import KERNEL_SECONDS_PER_VALUE, gaussian_job

    block = paper["alltoken"]["gaussian"]
    seeds = len(block["seeds"])
    # by hand at the paper's block: the figure's flow to 2 T_β at β = 5 (T_β = 1.25, η = 0.05: 50 layers) and the
    # trend's to T_β at β = 2, 5, 10, 20 (5β layers: 10 + 25 + 50 + 100), each layer 4000² kernel values, per seed
    assert (block["beta"], block["eta"], block["tokens"], block["trend_betas"]) == (5.0, 0.05, 4000, [2.0, 5.0, 10.0, 20.0])
    kernel_seconds = seeds * 4000**2 * (50 + 185) * KERNEL_SECONDS_PER_VALUE
    assert gaussian_job({}, paper).seconds - gaussian_job({}, {"alltoken": {"gaussian": {**block, "seeds": []}}}).seconds == (
        pytest.approx(kernel_seconds))
    doubled = gaussian_job({}, {"alltoken": {"gaussian": {**block, "seeds": [*block["seeds"], *range(100, 100 + seeds)]}}})
    assert doubled.seconds - gaussian_job({}, paper).seconds == pytest.approx(kernel_seconds)


def test_every_architecture_has_a_training_cost():
    assert set(TRAINING_SECONDS_PER_WORK) == set(DENOISES)


def test_a_rule_without_a_size_model_is_a_light_job(paper):
    estimate = job_estimate("plot_anything", {}, paper, {})
    assert estimate.runtime_minutes == RUNTIME_FLOOR_MINUTES and estimate.mem_mb < 2000


def test_job_files_follow_one_scheme_and_read_back():
    assert job_files("plot_fig3", []) == ("<logs>/plot_fig3.log", "<benchmarks>/plot_fig3.tsv")
    log, benchmark = job_files("train_ensemble", ["case", "L", "model"])
    assert log == "<logs>/train_ensemble/case={case},L={L},model={model}.log"
    assert job_of(benchmark.removeprefix("<benchmarks>/").format(case="gmm_3d", L="20", model="softmax")) == \
        ("train_ensemble", {"case": "gmm_3d", "L": "20", "model": "softmax"})
    assert job_of("plot_fig3.tsv") == ("plot_fig3", {})


@pytest.mark.parametrize("device, environ, expected", [
    ("cpu", {}, {"gpu": 0}),
    ("auto", {}, {"gpu": 0}),
    ("cuda", {}, {"gpu": 1}),
    ("auto", {"ICDENOISE_GPU_PARTITION": "gpu"}, {"gpu": 1, "slurm_partition": "gpu"}),
    ("cpu", {"ICDENOISE_GPU_PARTITION": "gpu", "SBATCH_PARTITION": "short"}, {"gpu": 0, "slurm_partition": "short"}),
    ("cuda", {"SBATCH_PARTITION": "short", "SBATCH_ACCOUNT": "lab"}, {"gpu": 1, "slurm_partition": "short", "slurm_account": "lab"}),
])
def test_training_jobs_ask_for_a_gpu_exactly_when_they_will_use_one(device, environ, expected):
    assert placement(device, environ) == expected
    assert training_gpus(device, environ) == expected["gpu"]


def test_other_jobs_get_the_partition_and_account_but_never_a_gpu():
    environ = {"ICDENOISE_GPU_PARTITION": "gpu", "SBATCH_PARTITION": "short", "SBATCH_ACCOUNT": "lab", "SBATCH_QOS": ""}
    assert placement(None, environ) == {"slurm_partition": "short", "slurm_account": "lab"}
    assert placement(None, {"SBATCH_PARTITION": ""}) == {}


def test_a_study_rule_asks_for_a_gpu_when_its_own_device_key_says_so(paper):
    """train_mssa_regression's device is execution.mssa.regression.device (the registry), not execution.training.device."""
    devices = device_keys(validate_config(paper, REPO / "workflow" / "schemas"))
    execution = paper["execution"]
    config = {**paper, "execution": {**execution, "training": {**execution["training"], "device": "cpu"},
                                     "mssa": {"regression": {**execution["mssa"]["regression"], "device": "cuda"}}}}
    assert placement(setting(config, devices["train_mssa_regression"]), {}) == {"gpu": 1}
    assert placement(setting(config, devices["train_ensemble"]), {}) == {"gpu": 0}
    assert "plot_fig3" not in devices and "sample_prompts" not in devices


def test_machine_cores_is_at_most_what_the_os_reports():
    assert 1 <= machine_cores() <= os.cpu_count()
