"""Sweeps declared in config: the grid's points, each a derived case with its own blocks; keys that name no
setting, and points whose settings are invalid, are refused with the sweep, key and point named; a point whose
settings are exactly its base case's, on runs the config trains, shares that case's jobs."""

import copy

import pytest

from icdenoise.pipeline.config import ConfigError, load_yaml, validate_config
from icdenoise.pipeline.registry import Run
from icdenoise.pipeline.registry import load_studies
from icdenoise.pipeline.sweeps import (
    bayes_source,
    grid_points,
    key_problems,
    point_name,
    shared_points,
    study_sweeps,
    sweep_key,
    sweep_points,
    with_study_sweeps,
    with_sweep_cases,
)


@pytest.fixture
def config(repo):
    return load_yaml(repo / "config" / "config.yaml")


def test_the_grid_is_the_cartesian_product_first_key_slowest():
    assert grid_points({"a": [1, 2], "b": ["x", "y", "z"]}) == [
        {"a": 1, "b": "x"}, {"a": 1, "b": "y"}, {"a": 1, "b": "z"}, {"a": 2, "b": "x"}, {"a": 2, "b": "y"}, {"a": 2, "b": "z"}]


def test_each_point_sets_its_keys_in_its_own_copy_of_each_block(config):
    config["sweeps"] = {"mix": {"cases": ["sphere", "gmm"], "models": ["softmax"], "seeds": [3, 4],
                                "grid": {"case.corruption.sigma_z_sq": [0.2, 0.4], "training.lr": [0.1], "dataset.seed": [9]}}}
    original = copy.deepcopy(config)
    points = sweep_points(config)
    assert list(points) == [point_name(base, "mix", index) for base in ("sphere", "gmm") for index in (0, 1)] == \
        ["sphere.mix0", "sphere.mix1", "gmm.mix0", "gmm.mix1"]
    point = points["gmm.mix1"]
    assert point.case == {**config["cases"]["gmm"], "corruption": {"kind": "query", "sigma_z_sq": 0.4}}
    assert point.training["lr"] == 0.1 and point.training["seeds"] == [3, 4] and point.training["epochs"] == 200
    assert point.dataset == {**config["dataset"], "seed": 9} and point.models == {"softmax": config["models"]["softmax"]}
    assert point.values == {"case.corruption.sigma_z_sq": 0.4, "training.lr": 0.1, "dataset.seed": 9}
    assert config == original  # the config's own blocks are untouched
    sizing = with_sweep_cases(config, points)
    assert sizing["cases"]["gmm.mix1"] == point.case and sizing["training"]["epochs"]["gmm.mix1"] == 200


def test_a_points_training_jobs_record_a_divergence_and_its_settings_stay_those_of_its_block(config):
    """A point's train_ensemble params add `on_divergence: record` to its training block, which keeps only
    settings (so that a point at its base case's settings still shares that case's jobs)."""
    config["sweeps"] = {"lr": {"cases": ["gmm"], "models": ["softmax"], "seeds": [0], "grid": {"training.lr": [0.1]}}}
    point = sweep_points(config)["gmm.lr0"]
    assert point.training_params == {**point.training, "on_divergence": "record"} and "on_divergence" not in point.training


def test_a_model_key_is_set_in_each_swept_models_block(config):
    config["models"]["stacked"] = {"architecture": "stacked_self_attention", "layers": 2}
    config["sweeps"] = {"depth": {"cases": ["alltoken_mixture"], "models": ["stacked"], "seeds": [0], "grid": {"model.layers": [1, 3]}}}
    assert [point.models["stacked"]["layers"] for point in sweep_points(config).values()] == [1, 3]
    assert config["models"]["stacked"]["layers"] == 2


@pytest.mark.parametrize("grid, message", [
    ({"case.sigma": [1]}, "sweeps.s.grid.case.sigma: case 'sphere' has no key sigma (its keys: task, n, d, radius, corruption.kind, "
                          "corruption.sigma_z_sq, L)"),
    ({"case.corruption.sigma_z_sqq": [1]}, "sweeps.s.grid.case.corruption.sigma_z_sqq: case 'sphere' has no key "
                                           "corruption.sigma_z_sqq; did you mean case.corruption.sigma_z_sq? (its keys: task,"),
    ({"case.sigma_z_sq": [1]}, "sweeps.s.grid.case.sigma_z_sq: case 'sphere' has no key sigma_z_sq; did you mean "
                               "case.corruption.sigma_z_sq?"),
    ({"model.architecure": [1]}, "sweeps.s.grid.model.architecure: model 'softmax' has no key architecure; did you mean "
                                 "model.architecture? (its keys: architecture)"),
    ({"model.layers": [1]}, "sweeps.s.grid.model.layers: model 'softmax' has no key layers (its keys: architecture)"),
    ({"training.momentum": [1]}, "sweeps.s.grid.training.momentum: the training block has no key momentum (its keys: "),
    ({"training.lrr": [1]}, "sweeps.s.grid.training.lrr: the training block has no key lrr; did you mean training.lr?"),
    ({"training.learning_rate": [1]}, "sweeps.s.grid.training.learning_rate: the training block has no key learning_rate; "
                                      "did you mean training.lr?"),
    ({"training.seeds": [[1]]}, "sweeps.s.grid.training.seeds: the training seeds of a sweep are its `seeds`"),
    ({"optimizer.lr": [1]}, "sweeps.s.grid.optimizer.lr: unknown key (allowed: case.<key>, model.<key>, training.<key>, dataset.<key>)"),
])
def test_a_key_that_names_no_setting_is_refused_with_the_keys_there_are(config, grid, message):
    config["sweeps"] = {"s": {"cases": ["sphere"], "models": ["softmax"], "seeds": [0], "grid": grid}}
    (problem,) = key_problems(config)
    assert problem.startswith(message)


def test_the_spread_key_must_be_another_key_of_the_grid(config):
    config["sweeps"] = {"s": {"cases": ["sphere"], "models": ["softmax"], "seeds": [0], "grid": {"dataset.seed": [2, 3]},
                              "spread": "dataset.seed"}}
    assert key_problems(config) == ["sweeps.s.spread: 'dataset.seed' is its only key, so nothing is left to draw against "
                                    "(allowed: another key of a grid with two or more)"]


def test_an_invalid_point_is_refused_naming_the_sweep_and_point(config, repo):
    config["sweeps"] = {"dim": {"cases": ["sphere"], "models": ["linear"], "seeds": [0], "grid": {"case.n": [16, 12, 5]}}}
    with pytest.raises(ConfigError) as refused:
        validate_config(config, repo / "workflow" / "schemas")
    assert str(refused.value).count("\n  - ") == 1
    assert "sweeps.dim at case.n = 5 (case sphere.dim2): cases.sphere.d: 8 needs a 9-dim subspace but cases.sphere.n = 5" in str(refused.value)


# A sweep `bad` on the sphere case, its grid and the message the config's validation gives for it: a key that names no
# setting or block (key_problems, among the cross-key checks), an empty list (the schema), and a point whose settings
# the schema refuses (the checks of every point, which run once the rest is valid).
BAD_SWEEPS = [
    ({"case.sigma": [0.1]}, "sweeps.bad.grid.case.sigma: case 'sphere' has no key sigma"),
    ({"case.corruption.sigma_z_sqq": [0.1]}, "case 'sphere' has no key corruption.sigma_z_sqq; did you mean case.corruption.sigma_z_sq?"),
    ({"optimizer.lr": [0.1]}, "sweeps.bad.grid.optimizer.lr: unknown key (allowed: case.<key>"),
    ({"training.lr": []}, "sweeps.bad.grid.training.lr: [] should be non-empty"),
    ({"case.n": [0, 4]}, "sweeps.bad at case.n = 0 (case sphere.bad0): cases.sphere.n: 0 is less than the minimum of 1"),
]


@pytest.mark.parametrize("grid, message", BAD_SWEEPS, ids=[message.split(":")[0] for _, message in BAD_SWEEPS])
def test_a_bad_sweep_is_refused_by_the_workflows_validation_with_its_key_or_point_named(config, repo, grid, message):
    config["sweeps"]["bad"] = {"cases": ["sphere"], "models": ["softmax"], "seeds": [0], "grid": grid}
    with pytest.raises(ConfigError) as refused:
        validate_config(config, repo / "workflow" / "schemas")
    assert message in str(refused.value)


def test_the_shipped_sweeps_are_valid_and_have_what_the_issue_asks(config, repo):
    validate_config(config, repo / "workflow" / "schemas")
    sweeps = config["sweeps"]
    assert set(sweeps["noise"]["cases"]) == {"sphere", "gmm"} and len(sweeps["noise"]["grid"]["case.corruption.sigma_z_sq"]) >= 5
    assert len(sweeps["dimension"]["grid"]["case.n"]) >= 4
    assert len(sweeps["data_seed"]["grid"]["dataset.seed"]) >= 5 and sweeps["data_seed"]["spread"] == "dataset.seed"
    fig4a = config["onelayer"]["fig4a"]
    assert sweeps["data_seed"]["cases"] == [fig4a["case"]] and sweeps["data_seed"]["models"] == [fig4a["model"]]
    assert set(sweeps["data_seed"]["grid"]["case.L"]) <= set(fig4a["context_lengths"])


def sphere_sweep(config, grid, models=("softmax",), seeds=None):
    """The config with one sweep `s` on the sphere case: `grid`, `models`, and the training seeds unless `seeds`."""
    seeds = list(config["training"]["seeds"]) if seeds is None else seeds
    config["sweeps"] = {"s": {"cases": ["sphere"], "models": list(models), "seeds": seeds, "grid": grid}}
    return config


def shared(config, runs=None):
    L = config["cases"]["sphere"]["L"]
    runs = {Run("sphere", model, L) for model in config["models"]} if runs is None else runs
    return shared_points(config, sweep_points(config), runs)


def test_a_point_with_its_base_cases_settings_on_a_configured_run_shares_its_jobs(config):
    sigma_z_sq = config["cases"]["sphere"]["corruption"]["sigma_z_sq"]
    sphere_sweep(config, {"case.corruption.sigma_z_sq": [sigma_z_sq / 2, sigma_z_sq, sigma_z_sq]}, models=("linear", "softmax"))
    assert shared(config) == {"sphere.s1": "sphere", "sphere.s2": "sphere"}


def test_a_point_at_a_model_keys_configured_value_shares_its_jobs(config):
    config["models"]["stacked"] = {"architecture": "stacked_self_attention", "layers": 2}
    sphere_sweep(config, {"model.layers": [2, 3]}, models=("stacked",))
    assert shared(config) == {"sphere.s0": "sphere"}


def bump(value):
    """Another value of the same type."""
    return 2 * value if value else 1


# A sweep whose one point would equal the sphere case but for one setting: its grid, models and seeds
# (None: the training seeds), and the runs the config trains (None: every model on the sphere case).
NOT_SHARED = {
    "seeds": lambda config: sphere_sweep(config, {"dataset.seed": [config["dataset"]["seed"]]}, seeds=config["training"]["seeds"][:2]),
    "a case key": lambda config: sphere_sweep(config, {"case.radius": [bump(config["cases"]["sphere"]["radius"])]}),
    "the case's L": lambda config: sphere_sweep(config, {"case.L": [bump(config["cases"]["sphere"]["L"])]}),
    "a case key's type": lambda config: sphere_sweep(config, {"case.n": [float(config["cases"]["sphere"]["n"])]}),
    "the epochs": lambda config: sphere_sweep(config, {"training.epochs": [bump(config["training"]["epochs"]["sphere"])]}),
    "a training key": lambda config: sphere_sweep(config, {"training.lr": [bump(config["training"]["lr"])]}),
    "a dataset key": lambda config: sphere_sweep(config, {"dataset.seed": [bump(config["dataset"]["seed"])]}),
    "a model key": lambda config: sphere_sweep(config, {"model.layers": [bump(config["models"]["alltoken_learned"]["layers"])]},
                                               models=("alltoken_learned",)),
}


@pytest.mark.parametrize("differs", NOT_SHARED)
def test_a_point_that_differs_from_its_base_case_in_any_setting_is_not_shared(config, differs):
    NOT_SHARED[differs](config)
    assert len(sweep_points(config)) == 1 and shared(config) == {}


def test_a_point_with_a_model_the_config_does_not_train_on_its_base_case_is_not_shared(config):
    sphere_sweep(config, {"dataset.seed": [config["dataset"]["seed"]]}, models=("linear", "softmax"))
    L = config["cases"]["sphere"]["L"]
    assert shared(config, runs={Run("sphere", "linear", L), Run("sphere", "softmax", L)}) == {"sphere.s0": "sphere"}
    assert shared(config, runs={Run("sphere", "softmax", L)}) == {}
    assert shared(config, runs={Run("sphere", "linear", L), Run("sphere", "softmax", L + 1)}) == {}
    assert shared(config, runs={Run("gmm", "linear", L), Run("gmm", "softmax", L)}) == {}


def test_a_studys_own_sweep_joins_the_configs_under_its_study_and_block_name(config):
    studies = load_studies(config["studies"])
    assert study_sweeps(config, studies) == {"onelayer_datasets": "onelayer.datasets"}
    swept = with_study_sweeps(config, studies)
    assert swept["sweeps"]["onelayer_datasets"] is config["onelayer"]["datasets"]
    assert "onelayer_datasets" not in config["sweeps"]  # the config itself is left as it was
    assert sweep_key("onelayer_datasets", studies, config) == "onelayer.datasets"
    assert sweep_key("noise", studies, config) == "sweeps.noise"
    points = [point for point in sweep_points(swept).values() if point.sweep == "onelayer_datasets"]
    assert {point.dataset["seed"] for point in points} == set(config["onelayer"]["datasets"]["grid"]["dataset.seed"])
    assert {point.base for point in points} == set(config["onelayer"]["datasets"]["cases"])


def test_a_bad_key_of_a_studys_own_sweep_is_named_by_its_key_in_the_study_block(config, repo):
    config["onelayer"]["datasets"]["grid"] = {"dataset.sead": [11, 12]}
    with pytest.raises(ConfigError) as refused:
        validate_config(config, repo / "workflow" / "schemas")
    assert "onelayer.datasets.grid.dataset.sead: the dataset block has no key sead; did you mean dataset.seed?" in str(refused.value)


def test_a_config_sweep_may_not_take_a_study_sweeps_name(config, repo):
    config["sweeps"]["onelayer_datasets"] = copy.deepcopy(config["sweeps"]["noise"])
    with pytest.raises(ConfigError, match="sweeps.onelayer_datasets: the name of the sweep that onelayer.datasets declares"):
        validate_config(config, repo / "workflow" / "schemas")


def test_a_point_whose_case_block_is_its_base_cases_reads_the_base_cases_closed_forms(config):
    sigma_z_sq = config["cases"]["sphere"]["corruption"]["sigma_z_sq"]
    sphere_sweep(config, {"dataset.seed": [11], "case.corruption.sigma_z_sq": [sigma_z_sq, sigma_z_sq / 2]})
    same, other = sweep_points(config).values()
    assert bayes_source(config, same, {}) == "sphere"  # only its dataset differs: the closed forms never read it
    assert bayes_source(config, other, {}) == other.name


def test_a_sweep_and_a_named_run_vary_the_digits_corpus_size_and_a_size_it_cannot_fill_is_refused(config, repo):
    """The real-data case's size (`case.per_class`, icdenoise.maths.digits) is a key like any other: a sweep over it is
    valid, each point a case of its own; a point the rarest digit cannot fill is refused before any job."""
    config["sweeps"] = {"corpus": {"cases": ["digits"], "models": ["softmax"], "seeds": [0],
                                   "grid": {"case.per_class": [10, 174]}}}
    validate_config(config, repo / "workflow" / "schemas")
    assert [point.case["per_class"] for point in sweep_points(config).values()] == [10, 174]
    named = copy.deepcopy(config)
    named["cases"]["digits"]["per_class"] = 30  # as a named run's file sets it
    validate_config(named, repo / "workflow" / "schemas")
    config["sweeps"]["corpus"]["grid"]["case.per_class"] = [10, 175]
    with pytest.raises(ConfigError) as refused:
        validate_config(config, repo / "workflow" / "schemas")
    assert "sweeps.corpus at case.per_class = 175 (case digits.corpus1): cases.digits.corpus1: icdenoise.maths.digits:Digits (" in str(refused.value)
    assert "digit 8 has only 174 (allowed: 1 to 174)" in str(refused.value)
    misspelt = copy.deepcopy(named)
    misspelt["cases"]["digits"]["per_clas"] = misspelt["cases"]["digits"].pop("per_class")
    with pytest.raises(ConfigError) as refused:
        validate_config(misspelt, repo / "workflow" / "schemas")
    assert "cases.digits.per_clas: not a parameter of the task icdenoise.maths.digits:Digits" in str(refused.value)
    assert "did you mean per_class?" in str(refused.value)
