"""Closed-form denoisers, registered per task (Section 2.3 and Appendix C; eqs. 3, 6, 7, 8, 10, 13 and
the zero predictor), as denoisers of prompts (`icdenoise.maths.denoisers`).

Each declares whether it reads the prompt's context:
- an estimator that reads only the query and the true task (an oracle, the zero predictor) applies
  under every corruption: under all-token corruption it denoises each noisy token on its own, which
  is the Bayes posterior mean because tokens are i.i.d. given the task;
- an estimator that reads the context (a plug-in, an attention form) assumes clean context tokens,
  so it applies to query-only corruption alone.

A transformed case (Appendix H) is scored with A known: closed forms see A⁻¹ applied first.

A task of one's own (`icdenoise.maths.tasks.UserTask`) brings its closed forms itself: its Bayes posterior mean
as `oracle` where it implements `bayes`, and the zero predictor always (`closed_forms_of`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from icdenoise.maths import bayes
from icdenoise.maths.cases import Case, make_case, untransformed
from icdenoise.maths.denoisers import Denoiser
from icdenoise.maths.prompts import Prompts
from icdenoise.maths.tasks import (
    FixedMixture,
    GaussianMixture,
    LinearSubspace,
    LowRankMixture,
    Sphere,
    Task,
    UserTask,
    class_report,
    user_task_offers,
)

Formula = Callable[[Prompts, Task, float], np.ndarray]  # (prompts, task, σ_z²) → (N, n)


@dataclass(frozen=True)
class ClosedForm:
    formula: Formula
    reads_context: bool


def zero_predictor(prompts: Prompts, task: Task, sigma_z_sq: float) -> np.ndarray:
    """The trivial baseline x̂ = 0; its loss is E‖x‖²."""
    return np.zeros_like(prompts.query)


def linear_oracle(prompts: Prompts, task: LinearSubspace, sigma_z_sq: float) -> np.ndarray:
    """Eq. 3 with the prompt's true subspace."""
    return bayes.linear_posterior_mean(prompts.query, prompts.task["basis"], task.sigma0_sq, sigma_z_sq)


def linear_plugin(prompts: Prompts, task: LinearSubspace, sigma_z_sq: float) -> np.ndarray:
    """Eq. 3 with P̂ the projector onto the top-d PCA subspace of the context."""
    basis = bayes.top_principal_subspace(prompts.context, task.d)
    return bayes.linear_posterior_mean(prompts.query, basis, task.sigma0_sq, sigma_z_sq)


def linear_empirical_covariance(prompts: Prompts, task: LinearSubspace, sigma_z_sq: float) -> np.ndarray:
    """Eq. 10, linear attention at W_PV = I, W_KQ = γ* I."""
    return bayes.empirical_covariance_attention(prompts.context, prompts.query, task.sigma0_sq, sigma_z_sq)


def ideal_softmax(prompts: Prompts, task: Sphere | GaussianMixture, sigma_z_sq: float) -> np.ndarray:
    """Eq. 13 at the heuristic point α = 1, β = 1/σ_z²."""
    return bayes.ideal_softmax_attention(prompts.context, prompts.query, bayes.bayes_inverse_temperature(sigma_z_sq))


def sphere_oracle(prompts: Prompts, task: Sphere, sigma_z_sq: float) -> np.ndarray:
    """Eq. 6 with the prompt's true subspace and radius."""
    return bayes.sphere_posterior_mean(prompts.query, prompts.task["basis"], prompts.task["radius"], sigma_z_sq)


def sphere_oracle_authors_orders(prompts: Prompts, task: Sphere, sigma_z_sq: float) -> np.ndarray:
    """Eq. 6 with the Bessel orders (n−1)/2, (n−3)/2 in place of (d+1)/2, (d−1)/2: at n = 16, d = 8
    these are the I_{7.5}/I_{6.5} of the authors' code, which drew the published Fig 3 line."""
    basis = prompts.task["basis"]
    return bayes.sphere_posterior_mean(prompts.query, basis, prompts.task["radius"], sigma_z_sq, sphere_dim=task.n - 2)


def sphere_plugin(prompts: Prompts, task: Sphere, sigma_z_sq: float) -> np.ndarray:
    """Eq. 6 with the top-(d+1) PCA subspace of the context and R̂ = mean ‖x_t‖."""
    basis = bayes.top_principal_subspace(prompts.context, task.d + 1)
    radius = np.linalg.norm(prompts.context, axis=2).mean(axis=1)
    return bayes.sphere_posterior_mean(prompts.query, basis, radius, sigma_z_sq)


def gmm_oracle(prompts: Prompts, task: GaussianMixture | FixedMixture, sigma_z_sq: float) -> np.ndarray:
    """Eq. 7 with the prompt's true centres and weights (eq. 8 when σ0² = 0)."""
    return bayes.gmm_posterior_mean(prompts.query, prompts.task["centres"], prompts.task["weights"], task.sigma0_sq, sigma_z_sq)


def gmm_oracle_point_masses(prompts: Prompts, task: GaussianMixture, sigma_z_sq: float) -> np.ndarray:
    """Eq. 8, the σ0 → 0 limit of eq. 7."""
    return bayes.gmm_posterior_mean_point_masses(prompts.query, prompts.task["centres"], prompts.task["weights"], sigma_z_sq)


def gmm_plugin(prompts: Prompts, task: GaussianMixture, sigma_z_sq: float) -> np.ndarray:
    """Eq. 7 with centres and weights estimated by k-means (K known) on the context."""
    centres, weights = bayes.kmeans_centres(prompts.context, task.K)
    return bayes.gmm_posterior_mean(prompts.query, centres, weights, task.sigma0_sq, sigma_z_sq)


def low_rank_mixture_oracle(prompts: Prompts, task: LowRankMixture, sigma_z_sq: float) -> np.ndarray:
    """The posterior mean of Definition 2.1's signal with the prompt's true bases (component latent)."""
    return bayes.low_rank_mixture_posterior_mean(prompts.query, prompts.task["bases"], sigma_z_sq)


ESTIMATORS: dict[str, dict[str, ClosedForm]] = {
    "linear": {
        "oracle": ClosedForm(linear_oracle, reads_context=False),
        "plugin": ClosedForm(linear_plugin, reads_context=True),
        "empirical_covariance": ClosedForm(linear_empirical_covariance, reads_context=True),
        "zero": ClosedForm(zero_predictor, reads_context=False),
    },
    "sphere": {
        "oracle": ClosedForm(sphere_oracle, reads_context=False),
        "oracle_authors_orders": ClosedForm(sphere_oracle_authors_orders, reads_context=False),
        "plugin": ClosedForm(sphere_plugin, reads_context=True),
        "ideal_softmax": ClosedForm(ideal_softmax, reads_context=True),
        "zero": ClosedForm(zero_predictor, reads_context=False),
    },
    "mixture": {
        "oracle": ClosedForm(gmm_oracle, reads_context=False),  # eq. 7 (eq. 8 when σ0² = 0) with the known prior
        "zero": ClosedForm(zero_predictor, reads_context=False),
    },
    "gmm": {
        "oracle": ClosedForm(gmm_oracle, reads_context=False),
        "oracle_point_masses": ClosedForm(gmm_oracle_point_masses, reads_context=False),
        "plugin": ClosedForm(gmm_plugin, reads_context=True),
        "ideal_softmax": ClosedForm(ideal_softmax, reads_context=True),
        "zero": ClosedForm(zero_predictor, reads_context=False),
    },
    "low_rank_mixture": {
        "oracle": ClosedForm(low_rank_mixture_oracle, reads_context=False),  # δ² = the off_subspace corruption's σ_z²
        "zero": ClosedForm(zero_predictor, reads_context=False),
    },
}


def user_task_oracle(prompts: Prompts, task: UserTask, sigma_z_sq: float) -> np.ndarray:
    """A task of one's own's Bayes posterior mean (`UserTask.bayes`), with the prompt's true parameters."""
    return task.bayes(prompts, sigma_z_sq)


def closed_forms_of(task: Task) -> dict[str, ClosedForm]:
    """The closed forms of a task: those registered under its name in ESTIMATORS; for a task of one's own,
    its Bayes posterior mean as `oracle` where it implements `bayes`, and the zero predictor."""
    if not isinstance(task, UserTask):
        return ESTIMATORS[task.name]
    own = {"oracle": ClosedForm(user_task_oracle, reads_context=False)} if user_task_offers(type(task))["bayes"] else {}
    return {**own, "zero": ClosedForm(zero_predictor, reads_context=False)}


def _token_by_token(prompts: Prompts) -> Prompts:
    """Queries (N, Q, n) as N·Q single-query prompts with their prompt's task parameters repeated.
    Only estimators that do not read the context get here, so the context is left empty."""
    count, queries, n = prompts.query.shape
    task = {key: np.repeat(value, queries, axis=0) for key, value in prompts.task.items()}
    empty_context = np.empty((count * queries, 0, n))
    return Prompts(empty_context, prompts.query.reshape(-1, n), prompts.target.reshape(-1, n), task)


@dataclass
class ClosedFormDenoiser(Denoiser):
    """A registered closed form for one case; returns (1, N, *target)."""

    closed_form: ClosedForm
    task: Task
    sigma_z_sq: float

    def predict(self, prompts: Prompts) -> np.ndarray:
        prompts = untransformed(prompts)
        if prompts.query.ndim == 2:
            return self.closed_form.formula(prompts, self.task, self.sigma_z_sq)[None]
        flat = self.closed_form.formula(_token_by_token(prompts), self.task, self.sigma_z_sq)
        return flat.reshape(prompts.query.shape)[None]


def applies(closed_form: ClosedForm, case: Case) -> bool:
    """Context-reading estimators need clean context tokens, i.e. query-only corruption."""
    return not closed_form.reads_context or case.corruption.name == "query"


def closed_form_denoisers(case: Case) -> dict[str, Denoiser]:
    """Every registered closed form that applies to the case, by name, in registry order."""
    return {
        name: ClosedFormDenoiser(closed_form, case.task, case.corruption.sigma_z_sq)
        for name, closed_form in closed_forms_of(case.task).items()
        if applies(closed_form, case)
    }


def expected_loss_per_coordinate(estimator: str, task: Task, sigma_z_sq: float) -> float:
    """Closed-form expected loss E‖x̂ − x‖²/n where one exists, else NaN.

    - linear oracle: d σ0² σ_z² / (σ0² + σ_z²), the total Bayes loss (the value printed with eq. 4,
      whose left-hand side should read E‖f_opt(X̃) − X‖², not E‖P X̃ − X‖² = d σ_z²), divided by n;
    - zero predictor: E‖x‖² = d σ0² (linear), R² (sphere), R² + n σ0² (gmm), divided by n;
    - a task of one's own: its `second_moment` and `bayes_loss`, divided by n (NaN where it gives none).
    """
    if estimator == "zero":
        return task.second_moment() / task.n
    if isinstance(task, UserTask) and estimator == "oracle":
        return task.bayes_loss(sigma_z_sq) / task.n
    if task.name == "linear" and estimator == "oracle":
        return task.d * bayes.linear_bayes_loss_per_dimension(task.sigma0_sq, sigma_z_sq) / task.n
    return float("nan")


CHECK_TOKENS = 3  # tokens a task of one's own draws in its check, and prompts of at most this context length


def _draw_problems(task: UserTask) -> list[str]:
    """What is wrong with a task's draw of CHECK_TOKENS tokens from ``default_rng([0, 0])``: its form, and whether a
    second draw from an equal generator repeats it (a task drawing from any other generator would break the
    per-prompt seeding of icdenoise.maths.cases)."""
    draws = []
    for _ in range(2):
        drawn = task.sample_tokens(np.random.default_rng([0, 0]), CHECK_TOKENS)
        if not (isinstance(drawn, tuple) and len(drawn) == 2 and isinstance(drawn[1], dict)):
            return [f"sample_tokens(rng, count) returned {type(drawn).__name__}, not a pair (tokens (count, n), {{parameter: array}})"]
        tokens, parameters = np.asarray(drawn[0]), {key: np.asarray(value) for key, value in drawn[1].items()}
        if tokens.shape != (CHECK_TOKENS, task.n) or tokens.dtype.kind != "f" or not np.isfinite(tokens).all():
            return [f"sample_tokens(rng, {CHECK_TOKENS}) returned tokens of shape {tokens.shape} and dtype {tokens.dtype} "
                    f"(allowed: finite floats of shape ({CHECK_TOKENS}, n) = ({CHECK_TOKENS}, {task.n}))"]
        bad = sorted(key for key, value in parameters.items() if not isinstance(key, str) or value.dtype.kind not in "biuf")
        if bad:
            return [f"sample_tokens returned parameters {bad} that are not numeric arrays by name (each is stored in the dataset)"]
        draws.append((tokens, parameters))
    (tokens, parameters), (again, parameters_again) = draws
    same = np.array_equal(tokens, again) and parameters.keys() == parameters_again.keys() and all(
        np.array_equal(value, parameters_again[key]) for key, value in parameters.items())
    if not same:
        return ["sample_tokens draws differently from two equal generators: it must draw from its `rng` alone (the prompt's "
                "own generator), never from numpy's or torch's global one"]
    return []


def user_task_report(block: dict) -> dict:
    """The check of a case whose task is one's own (``task: module.path:ClassName``), made before any job in a child
    interpreter (icdenoise.pipeline.user_tasks): {"problems": what is wrong, in words; "parameters": the class's
    fields; "missing": those the block lacks; "unknown": the block's keys that are none of them nor a case's own keys
    (CASE_KEYS); "offers": which optional methods it implements}. The class must import, be a UserTask dataclass
    implementing sample_tokens, be built from the block, draw well-formed tokens from the generator it is given only,
    sample two prompts with the case's corruption, and, where it has `bayes`, estimate their targets' shape."""
    report = class_report(block)
    if report["problems"] or report["missing"] or report["unknown"]:
        return report
    try:
        case = make_case(block)
    except Exception as error:
        report["problems"] = [f"cannot be built from the case's keys ({type(error).__name__}: {error})"]
        return report
    steps = [("sample_tokens", lambda: _draw_problems(case.task))]
    steps.append(("sampling two prompts", lambda: _sampled_problems(case, min(block["L"], CHECK_TOKENS))))
    for step, check in steps:
        try:
            report["problems"] = check()
        except Exception as error:
            report["problems"] = [f"{step} failed ({type(error).__name__}: {error})"]
        if report["problems"]:
            break
    return report


def _sampled_problems(case: Case, context_length: int) -> list[str]:
    """Two prompts of the case, and where the task has `bayes`, its estimate for their queries as the `oracle` passes
    them (one per row; under all-token corruption every token a query): finite values of the queries' shape."""
    prompts = untransformed(case.sample(2, context_length, seed=0))
    if "oracle" not in closed_forms_of(case.task):
        return []
    given = _token_by_token(prompts) if prompts.query.ndim == 3 else prompts
    try:
        estimate = np.asarray(case.task.bayes(given, case.corruption.sigma_z_sq))
    except Exception as error:
        return [f"bayes(prompts, sigma_z_sq) failed ({type(error).__name__}: {error})"]
    if estimate.shape != given.query.shape or estimate.dtype.kind != "f" or not np.isfinite(estimate).all():
        return [f"bayes(prompts, sigma_z_sq) returned {estimate.dtype} values of shape {estimate.shape} for queries of shape "
                f"{given.query.shape} (allowed: finite floats, the queries' shape)"]
    return []
