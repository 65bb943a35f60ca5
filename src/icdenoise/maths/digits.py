"""scikit-learn's handwritten digits (`sklearn.datasets.load_digits`: 1,797 grey-scale images of 8 × 8 pixels,
integers 0–16, ten classes; scikit-learn is pinned in pyproject.toml), read from the installed package, never
downloaded: the images themselves (`digit_images`, which the mssa study's vision models classify) and a real-data
prior for in-context denoising (`Digits`, a task of the leaderboard).

`Digits` is a prior over token distributions p_X in the sense of Sec. 2.2 of the core paper, with real images for
tokens. Per prompt:
1. a digit c is drawn uniformly from 0–9 (the prompt's task parameter ``digit``);
2. p_X is uniform over the first `per_class` images of that digit, in load_digits' order, each image's 64 pixels
   (row-major) scaled to unit Euclidean norm (`unit_images`);
3. the prompt's L context tokens and its clean query are drawn i.i.d. from p_X, with replacement.

p_X is then a mixture of point masses on the unit sphere of R^64 with equal weights, so the Bayes posterior mean of
the clean query x given x̃ = x + z, z ~ N(0, σ_z² I) and the digit is eq. 8 of the paper with those points for
centres: E[x | x̃, c] = Σ_i softmax_i(⟨x_i, x̃⟩/σ_z²) x_i over the digit's images (eq. 7 at σ0 = 0; the ‖x_i‖² term
is the same for every image). Softmax attention over the context (eq. 12) is the same sum over L draws instead of
every image, which is why the case suits the theory: the prompt tells the model which digit's images to average.
E‖x‖² = 1. The oracle's loss has no closed form: `evaluate_bayes` measures it on fresh prompts.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from icdenoise.maths.tasks import UserTask

PIXEL_MAX = 16.0  # load_digits' pixels are integers 0..16
CLASSES = 10
SIDE = 8  # pixels per row and column
RAREST = 174  # the images of the rarest digit (8) in load_digits: the most `per_class` can be
INSTALL = "pip install scikit-learn (pinned in pyproject.toml; `pip install -e .` from this checkout installs it)"


def digit_images(needed_by: str = "the mssa study's vision models") -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's handwritten digits: images (1797, 8, 8) float64 scaled to [0, 1], labels (1797,) int64.
    Raises ModuleNotFoundError naming what needs them (`needed_by`) and how to install scikit-learn."""
    try:
        from sklearn.datasets import load_digits
    except ModuleNotFoundError as missing:
        raise ModuleNotFoundError(f"{needed_by} read scikit-learn's handwritten digits, and the package scikit-learn "
                                  f"is not installed: {INSTALL}") from missing
    digits = load_digits()
    return digits.images.astype(np.float64) / PIXEL_MAX, digits.target.astype(np.int64)


@cache
def unit_images(per_class: int) -> np.ndarray:
    """(10, per_class, 64): for each digit, its first `per_class` images in load_digits' order, each flattened
    row-major and scaled to unit norm (`per_class` at most RAREST)."""
    images, labels = digit_images(needed_by="the leaderboard's digits case (icdenoise.maths.digits:Digits)")
    flat = images.reshape(len(images), SIDE * SIDE)
    chosen = np.stack([flat[labels == digit][:per_class] for digit in range(CLASSES)])
    unit = chosen / np.linalg.norm(chosen, axis=2, keepdims=True)
    unit.setflags(write=False)
    return unit


@dataclass(frozen=True)
class Digits(UserTask):
    """Handwritten digits as a prior (module docstring). Task parameter: ``digit``, the prompt's class (an integer
    0–9). `per_class`: how many images of each digit p_X ranges over (at most 174, the rarest digit's count); named
    runs and sweeps vary it as any case key (``case.per_class``)."""

    per_class: int

    def __post_init__(self):
        if self.n != SIDE * SIDE:
            raise ValueError(f"n: the digits are {SIDE} × {SIDE} images, so n = {SIDE * SIDE}, not {self.n}")
        if not 1 <= self.per_class <= RAREST:
            raise ValueError(f"per_class: {self.per_class} images of each digit, but digit 8 has only {RAREST} "
                             f"(allowed: 1 to {RAREST})")

    def sample_tokens(self, rng, count):
        digit = int(rng.integers(CLASSES))
        chosen = rng.integers(self.per_class, size=count)
        return unit_images(self.per_class)[digit, chosen], {"digit": np.array(digit)}

    def bayes(self, prompts, sigma_z_sq):
        """Eq. 8 over every image of each prompt's digit, computed one digit at a time."""
        from icdenoise.maths.bayes import gmm_posterior_mean_point_masses  # (scipy) here: the config check imports this module

        images = unit_images(self.per_class)
        digits = np.asarray(prompts.task["digit"]).astype(int)
        weights = np.full(self.per_class, 1 / self.per_class)
        estimate = np.empty_like(prompts.query)
        for digit in np.unique(digits):
            rows = digits == digit
            count = int(rows.sum())
            centres = np.broadcast_to(images[digit], (count, *images[digit].shape))
            estimate[rows] = gmm_posterior_mean_point_masses(prompts.query[rows], centres,
                                                            np.broadcast_to(weights, (count, self.per_class)), sigma_z_sq)
        return estimate

    def second_moment(self):
        return 1.0  # every image has unit norm
