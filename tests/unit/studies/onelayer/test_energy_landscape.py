"""Section 4 (eqs. 16, 17) and the Fig. 6 landscape, against autograd and the attention model."""

import numpy as np
import pytest
import torch
from helpers import query_case

from icdenoise.maths.models import SoftmaxAttention
from icdenoise.maths.tasks import Sphere
from icdenoise.studies.onelayer.energy import descent_path, descent_step, energy, energy_gradient
from icdenoise.studies.onelayer.landscape import scaled_identity_mse


@pytest.fixture
def prompts():
    return query_case(Sphere(n=3, d=1, radius=1.0), 0.1).sample(7, 12, seed=4)


def test_energy_gradient_matches_autograd(prompts):
    alpha, beta = 0.8, 6.0
    states = torch.tensor(prompts.query, dtype=torch.float64, requires_grad=True)
    context = torch.tensor(prompts.context, dtype=torch.float64)
    torch_energy = 0.5 / alpha * (states**2).sum(-1) - torch.logsumexp(beta * torch.einsum("bln,bn->bl", context, states), -1) / beta
    torch_energy.sum().backward()
    np.testing.assert_allclose(energy(prompts.context, prompts.query, alpha, beta), torch_energy.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(energy_gradient(prompts.context, prompts.query, alpha, beta), states.grad.numpy(), atol=1e-12)


def test_one_step_with_gamma_alpha_is_the_softmax_attention_output(prompts):
    """Eq. 17 from s(0) = x̃ with γ = α equals eq. 12 with W_PV = α I, W_KQ = β I."""
    alpha, beta, n = 1.3, 10.0, prompts.query.shape[1]
    step = descent_step(prompts.context, prompts.query, alpha, beta, step_size=alpha)
    model = SoftmaxAttention.from_weights(beta * torch.eye(n, dtype=torch.float64)[None], alpha * torch.eye(n, dtype=torch.float64)[None])
    with torch.no_grad():
        output = model(model.prepare(torch.tensor(prompts.context)), torch.tensor(prompts.query))[0].numpy()
    np.testing.assert_allclose(step, output, atol=1e-12)


def test_small_steps_decrease_the_energy(prompts):
    path = descent_path(prompts.context, prompts.query, 1.0, 10.0, step_size=0.05, steps=30)
    energies = energy(prompts.context, path, 1.0, 10.0)  # (steps + 1, N)
    assert np.all(np.diff(energies, axis=0) <= 1e-12)
    assert path.shape == (31, *prompts.query.shape)


def test_landscape_scan_matches_a_direct_loop_over_the_model(prompts):
    alphas, betas = np.linspace(-2, 2, 4), np.linspace(-8, 8, 3)
    grid = scaled_identity_mse(prompts.context, prompts.query, prompts.target, alphas, betas)
    n = prompts.query.shape[1]
    context = torch.tensor(prompts.context)
    for i, beta in enumerate(betas):
        for j, alpha in enumerate(alphas):
            model = SoftmaxAttention.from_weights(beta * torch.eye(n, dtype=torch.float64)[None], alpha * torch.eye(n, dtype=torch.float64)[None])
            with torch.no_grad():
                prediction = model(model.prepare(context), torch.tensor(prompts.query))[0].numpy()
            assert grid[i, j] == pytest.approx(np.mean((prediction - prompts.target) ** 2), rel=1e-10)
