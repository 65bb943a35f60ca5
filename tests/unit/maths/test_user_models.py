"""A model class of one's own, named module.path:ClassName: resolved, checked against the interface, trained
and read back like ours."""

import numpy as np
import torch

from icdenoise.maths.models import EnsembleModel, interface_problems, make_model, model_class
from icdenoise.maths.prompts import Prompts


class Shrink(EnsembleModel):
    denoises = frozenset({"query"})

    @classmethod
    def initial_parameters(cls, rng, n, **options):
        return {"scale": np.full((1, 1), options.get("start", 0.5))}

    @staticmethod
    def prepare(context):
        return context

    def forward(self, features, query):
        return self.weights["scale"] * query


class NoPrepare(EnsembleModel):
    denoises = frozenset({"query"})

    @classmethod
    def initial_parameters(cls, rng, n, **options):
        return {"scale": np.ones((1, 1))}

    def forward(self, features, query):
        return query


class Unlabelled(Shrink):
    denoises = frozenset({"blur"})


def test_a_class_is_found_by_its_module_path():
    assert model_class(f"{__name__}:Shrink") is Shrink
    assert model_class("softmax").architecture == "softmax"


def test_the_interface_check_names_what_is_missing():
    assert interface_problems(Shrink) == []
    assert interface_problems(NoPrepare) == ["it does not implement prepare"]
    assert interface_problems(Unlabelled) == ["its `denoises` (['blur']) must name one or more corruptions of "
                                              "['all_tokens', 'off_subspace', 'query']"]
    assert "is not a subclass" in interface_problems(int)[0]
    assert Shrink.corruptions() == frozenset({"query"})


def test_a_users_model_predicts_round_trips_and_takes_options():
    model = make_model({"architecture": f"{__name__}:Shrink", "start": 0.25}, [0, 1], 3)
    query = np.arange(6, dtype=np.float32).reshape(2, 3)
    prompts = Prompts(context=np.zeros((2, 4, 3), np.float32), query=query, target=query, task={})
    assert np.allclose(model.predict(prompts), 0.25 * query[None])
    seeds, back = Shrink.from_frame(model.to_frame([0, 1], "final"), "final")
    assert seeds == [0, 1] and torch.allclose(back.weights["scale"], model.weights["scale"].double())
