"""The memory study's job sizes (icdenoise.pipeline.resources): its config states one request for every
compute job (`execution.memory.resources`), since they range from seconds to a minute whatever the sizes."""

from __future__ import annotations

from icdenoise.pipeline.resources import JobEstimate, SizeModel, stated_request

COMPUTE_RULES = ("bisect_memory_capacity", "bisect_memory_capacity_confirmatory", "measure_memory_curves", "simulate_memory_variance", "bisect_memory_low_rank",
                 "bisect_memory_low_rank_regime",
                 "train_memory_mlp", "evaluate_memory_zipf", "evaluate_memory_zipf_confirmatory", "train_memory_induction", "estimate_memory_bigrams",
                 "train_memory_induction_shakespeare", "train_memory_factual",
                 "simulate_memory_factual_dynamics", "step_memory_planted", "step_memory_population")


def stated(rule: str) -> SizeModel:
    def model(wildcards: dict, config: dict) -> JobEstimate:
        return stated_request(rule, config["execution"]["memory"]["resources"])

    return model


SIZES: dict[str, SizeModel] = {rule: stated(rule) for rule in COMPUTE_RULES}
