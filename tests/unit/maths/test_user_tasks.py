"""A task of one's own, named module.path:ClassName: resolved, sampled through its case with the built-in tasks'
per-prompt seeding, scored with its own Bayes posterior mean where it has one and the zero predictor otherwise,
and checked against the interface with the problem named."""

from dataclasses import dataclass

import numpy as np
import pytest

from icdenoise.maths.cases import make_case
from icdenoise.maths.estimators import (
    ESTIMATORS,
    closed_form_denoisers,
    closed_forms_of,
    expected_loss_per_coordinate,
    user_task_report,
)
from icdenoise.maths.evaluation import evaluate_closed_forms
from icdenoise.maths.tasks import UserTask, make_task, task_class, task_interface_problems, user_task_offers


@dataclass(frozen=True)
class Shifted(UserTask):
    """x = m + g, g ~ N(0, σ0² I_n), with a per-prompt mean m ~ N(0, I_n): Bayes is a shrinkage towards m."""

    sigma0_sq: float

    def sample_tokens(self, rng, count):
        mean = rng.standard_normal(self.n)
        return mean + np.sqrt(self.sigma0_sq) * rng.standard_normal((count, self.n)), {"mean": mean}

    def bayes(self, prompts, sigma_z_sq):
        mean = prompts.task["mean"]
        return mean + self.sigma0_sq / (self.sigma0_sq + sigma_z_sq) * (prompts.query - mean)

    def second_moment(self):
        return self.n * (1 + self.sigma0_sq)

    def bayes_loss(self, sigma_z_sq):
        return self.n * self.sigma0_sq * sigma_z_sq / (self.sigma0_sq + sigma_z_sq)


@dataclass(frozen=True)
class Unknown(UserTask):
    """Tokens of the same prior, with no Bayes posterior mean and no closed-form loss."""

    sigma0_sq: float

    def sample_tokens(self, rng, count):
        return Shifted.sample_tokens(self, rng, count)


@dataclass(frozen=True)
class NoSampler(UserTask):
    scale: float


class NotADataclass(Shifted):
    shape: float = 2.0  # never a field: the class is not a dataclass of its own

    def sample_tokens(self, rng, count):
        return np.zeros((count, self.n)), {}


@dataclass(frozen=True)
class WrongShape(Unknown):
    def sample_tokens(self, rng, count):
        return rng.standard_normal((count, self.n + 1)), {}


@dataclass(frozen=True)
class BadBayes(Shifted):
    def bayes(self, prompts, sigma_z_sq):
        return prompts.query[:, :1]


def block(task: str, kind: str = "query", **keys) -> dict:
    return {"task": f"{__name__}:{task}", "n": 3, "sigma0_sq": 0.5, "corruption": {"kind": kind, "sigma_z_sq": 0.2}, "L": 6, **keys}


def test_a_task_is_found_by_its_module_path_and_named_after_it():
    assert task_class(f"{__name__}:Shifted") is Shifted and task_class("sphere").name == "sphere"
    task = make_task(block("Shifted"))
    assert task == Shifted(n=3, sigma0_sq=0.5) and task.name == f"{__name__}:Shifted"


@pytest.mark.parametrize("kind", ["query", "all_tokens"])
def test_prompt_i_of_a_users_task_depends_only_on_seed_and_index(kind):
    case = make_case(block("Shifted", kind))
    whole, piece = case.sample(6, 5, seed=11), case.sample(2, 5, seed=11, start=3)
    np.testing.assert_array_equal(whole.context[3:5], piece.context)
    np.testing.assert_array_equal(whole.query[3:5], piece.query)
    np.testing.assert_array_equal(whole.task["mean"][3:5], piece.task["mean"])
    rng = np.random.default_rng([11, 4])  # prompt 4's own generator: the task draws first, then the corruption
    tokens, _ = case.task.sample_tokens(rng, case.corruption.clean_tokens(5))
    clean = np.concatenate([whole.context[4], whole.target[4][None]]) if kind == "query" else whole.target[4]
    np.testing.assert_array_equal(clean, tokens)
    assert not np.allclose(piece.context, case.sample(2, 5, seed=12, start=3).context)


def test_the_closed_forms_of_a_users_task_are_its_bayes_mean_and_the_zero_predictor():
    assert closed_forms_of(make_task({"task": "gmm", "n": 3, "K": 2, "radius": 1.0, "sigma0_sq": 0.1})) is ESTIMATORS["gmm"]
    assert list(closed_forms_of(make_task(block("Shifted")))) == ["oracle", "zero"]
    assert list(closed_forms_of(make_task(block("Unknown")))) == ["zero"]
    assert user_task_offers(Shifted) == {"bayes": True, "second_moment": True, "bayes_loss": True}
    assert user_task_offers(Unknown) == {"bayes": False, "second_moment": False, "bayes_loss": False}
    case = make_case(block("Shifted", "all_tokens"))
    prompts = case.sample(3, 4, seed=0)
    estimate = closed_form_denoisers(case)["oracle"].predict(prompts)
    assert estimate.shape == (1, 3, 4, 3)  # every noisy token denoised on its own, as the built-in oracles do
    mean = prompts.task["mean"][1]
    np.testing.assert_allclose(estimate[0, 1, 2], mean + 0.5 / 0.7 * (prompts.query[1, 2] - mean))


def test_a_users_bayes_mean_and_closed_form_losses_are_scored_and_checked_by_monte_carlo():
    table = evaluate_closed_forms("shifted", block("Shifted"), 6, n_prompts=4000, seed=1, chunk_size=1000).set_index("estimator")
    assert table.loc["oracle", "expected"] == pytest.approx(0.5 * 0.2 / 0.7)
    assert table.loc["zero", "expected"] == pytest.approx(1.5)
    for estimator in ("oracle", "zero"):
        assert abs(table.loc[estimator, "mse"] - table.loc[estimator, "expected"]) < 4 * table.loc[estimator, "sem"]


def test_a_task_without_bayes_is_scored_against_the_zero_predictor_alone_without_a_key_error():
    table = evaluate_closed_forms("unknown", block("Unknown"), 6, n_prompts=200, seed=1, chunk_size=100)
    assert list(table["estimator"]) == ["zero"] and np.isnan(table["expected"].iloc[0])
    assert np.isnan(expected_loss_per_coordinate("oracle", make_task(block("Unknown")), 0.2))


def test_the_interface_check_names_what_is_missing():
    assert task_interface_problems(Shifted) == []
    assert task_interface_problems(NoSampler) == ["it does not implement sample_tokens(rng, count)"]
    assert task_interface_problems(NotADataclass) == [
        "it is not a dataclass of its own (decorate it with @dataclass(frozen=True), its parameters as fields)"]
    assert "is not a subclass of icdenoise.maths.tasks.UserTask" in task_interface_problems(dict)[0]


@pytest.mark.parametrize("task,keys,expected", [
    ("Shifted", {}, {"problems": [], "missing": [], "unknown": []}),
    ("Shifted", {"sigma0_sq": None, "sigma_sq": 0.5}, {"missing": ["sigma0_sq"], "unknown": ["sigma_sq"]}),
    ("Nowhere", {}, {"problems": ["cannot import it (AttributeError: "]}),
    ("NoSampler", {"scale": 1.0}, {"problems": ["it does not implement sample_tokens(rng, count)"]}),
    ("WrongShape", {}, {"problems": ["sample_tokens(rng, 3) returned tokens of shape (3, 4)"]}),
    ("BadBayes", {}, {"problems": ["bayes(prompts, sigma_z_sq) returned float64 values of shape (2, 1) for queries of shape (2, 3)"]}),
])
def test_the_report_of_a_case_names_each_problem(task, keys, expected):
    given = {key: value for key, value in {**block(task), **keys}.items() if value is not None}
    report = user_task_report(given)
    for key, value in expected.items():
        if key == "problems" and value:
            assert len(report[key]) == 1 and report[key][0].startswith(value[0]), report
        else:
            assert report[key] == value, report
