"""Shared test helpers."""

from icdenoise.maths.cases import Case
from icdenoise.maths.corruptions import AllTokenNoise, QueryNoise


def query_case(task, sigma_z_sq: float) -> Case:
    """The core paper's setting: clean context, one query with noise of variance σ_z²."""
    return Case(task, QueryNoise(sigma_z_sq))


def all_token_case(task, sigma_z_sq: float) -> Case:
    """Every token noisy with variance σ_z², every token a target."""
    return Case(task, AllTokenNoise(sigma_z_sq))
