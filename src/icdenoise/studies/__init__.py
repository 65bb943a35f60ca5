"""Studies: a paper or a set of experiments on the common core. A study is a config block (named
after it), its rules (``workflow/rules/<study>/``), its figures and its claims. In code it is a
`Study` registered in `icdenoise.studies.registry.STUDIES`: the training runs its figures need, the
cross-key checks of its config block, and its claims registry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, NamedTuple


class Run(NamedTuple):
    """One training job: every seed of one model on one case's dataset at context length L."""

    case: str
    model: str
    L: int


@dataclass(frozen=True)
class Study:
    name: str
    title: str
    claims: dict  # claim id → icdenoise.claims.Claim
    runs: Callable[[dict], set[Run]]  # config → the training runs its figures need
    problems: Callable[[dict], list[str]]  # config → cross-key problems of its block
