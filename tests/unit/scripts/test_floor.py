"""The training floor's cost model, checked against torch's own flop count and a real training run."""

import pytest
import torch
from floor import MachineRates, compute_floor_seconds, job_counts, job_floor_seconds, training_work
from helpers import query_case
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.utils.flop_counter import FlopCounterMode

from icdenoise.maths.models import SoftmaxAttention
from icdenoise.maths.scoring import squared_error_per_seed
from icdenoise.maths.tasks import Sphere
from icdenoise.maths.training import Split, TrainingSettings, train_ensemble

N_DIM, LENGTH, SEEDS, BATCH, PROMPTS = 4, 2000, 3, 10, 30  # L ≫ n, so that the n² products are negligible


def counted_flops(function) -> int:
    counter = FlopCounterMode(display=False)
    with counter:
        function()
    return counter.get_total_flops()


@pytest.fixture(scope="module")
def model_and_data():
    torch.manual_seed(0)
    model = SoftmaxAttention.initialise(list(range(SEEDS)), N_DIM)
    contexts = torch.randn(PROMPTS, LENGTH, N_DIM, dtype=torch.float32)
    return model, model.prepare(contexts), *torch.randn(2, PROMPTS, N_DIM, dtype=torch.float32)


def test_softmax_step_flops_match_torch_count(model_and_data):
    model, features, queries, targets = model_and_data
    index = torch.stack([torch.randperm(PROMPTS)[:BATCH] for _ in range(SEEDS)])  # each seed its own minibatch

    def step():
        squared_error_per_seed(model(features[index], queries[index]), targets[index]).sum().backward()

    expected = training_work("softmax", N_DIM, LENGTH, SEEDS, BATCH, PROMPTS).step_flops
    assert counted_flops(step) == pytest.approx(expected, rel=0.02)


def test_softmax_record_flops_match_torch_count(model_and_data):
    model, features, queries, targets = model_and_data
    # FlopCounterMode cannot see inside the CPU's fused attention kernel: count torch's reference
    # attention instead, which does the same two products as separate matmuls
    with torch.no_grad(), sdpa_kernel(SDPBackend.MATH):
        flops = counted_flops(lambda: model(features, queries))
    assert flops == pytest.approx(training_work("softmax", N_DIM, LENGTH, SEEDS, BATCH, PROMPTS).record_flops, rel=0.02)


@pytest.mark.parametrize("epochs, record_every", [(3, 4), (2, 5), (4, 1)])
def test_job_counts_equal_the_records_of_a_training_run(epochs, record_every):
    prompts = query_case(Sphere(n=3, d=1, radius=1.0), 0.1).sample(30, 5, seed=0)
    tensors = [torch.tensor(a, dtype=torch.float32) for a in (prompts.context, prompts.query, prompts.target)]
    train, test = Split(*(t[:25] for t in tensors)), Split(*(t[25:] for t in tensors))
    settings = TrainingSettings(epochs=epochs, batch_size=10, lr=0.01, lr_decay_at=(), lr_decay_factor=0.1, record_every=record_every)
    losses, _ = train_ensemble(SoftmaxAttention.initialise([0], 3), train, test, [0], settings, torch.device("cpu"))
    steps, records = job_counts(epochs, 25, 10, record_every)
    assert losses["step"].max() == steps
    assert losses["step"].nunique() == records


def test_floor_is_bound_by_the_slower_of_compute_and_memory():
    work = training_work("softmax", 16, 500, 6, 80, 1000)
    compute_bound = MachineRates(gemm_flops_per_second=1e9, read_bytes_per_second=1e15)
    memory_bound = MachineRates(gemm_flops_per_second=1e15, read_bytes_per_second=1e9)
    steps, records = job_counts(200, 800, 80, 4)
    assert compute_floor_seconds(work, steps, records, compute_bound) == pytest.approx(
        (steps * work.step_flops + records * work.record_flops) / 1e9)
    assert compute_floor_seconds(work, steps, records, memory_bound) == pytest.approx(
        (steps * work.step_bytes + records * work.record_bytes) / 1e9)
    started = MachineRates(gemm_flops_per_second=1e9, read_bytes_per_second=1e15, start_seconds=2.5)
    assert job_floor_seconds(work, steps, records, started) == pytest.approx(2.5 + compute_floor_seconds(work, steps, records, compute_bound))


def test_study_models_have_no_floor():
    assert training_work("two_stage_attention", 1, 50, 6, 80, 1000) is None


def test_a_gpu_unit_of_work_takes_at_least_one_kernel_launch():
    rates = MachineRates(gemm_flops_per_second=1e12, read_bytes_per_second=1e12, launch_seconds=5e-6)
    assert rates.seconds(flops=1e3, moved_bytes=1e3) == 5e-6
    assert rates.seconds(flops=1e9, moved_bytes=1e3) == pytest.approx(1e-3)
    assert MachineRates(1e12, 1e12).seconds(1e3, 1e3) == pytest.approx(1e-9)
