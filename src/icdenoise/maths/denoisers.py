"""One interface for everything that estimates clean tokens from prompts.

A denoiser answers ``predict(prompts) -> (S, N, *target)``, with S the seed axis: S = 1 for a
closed form (`icdenoise.maths.estimators`), one slice per seed for a trained ensemble (`TrainedEnsemble`).
`icdenoise.maths.scoring.score` scores any set of denoisers on any prompts.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

import numpy as np

from icdenoise.maths.prompts import Prompts


class Denoiser(ABC):
    """predict(prompts) → (S, N, *target.shape[1:]); `seeds` labels the S slices (None: a closed form)."""

    seeds: tuple[int, ...] | None = None

    @abstractmethod
    def predict(self, prompts: Prompts) -> np.ndarray: ...


@dataclass
class TrainedEnsemble(Denoiser):
    """A trained ensemble (`icdenoise.maths.models.EnsembleModel`) and the seeds of its slices."""

    model: Any
    seeds: tuple[int, ...]

    def predict(self, prompts: Prompts) -> np.ndarray:
        return self.model.predict(prompts)
