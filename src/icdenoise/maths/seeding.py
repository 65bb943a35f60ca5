"""Explicit seeding: each training seed owns two independent generators, one for the weight
initialisation and one for the minibatch order, so "same data, different init" is a config choice."""

from __future__ import annotations

import numpy as np


def seed_generators(seed: int) -> tuple[np.random.Generator, np.random.Generator]:
    """Independent streams for (weight initialisation, minibatch order) of one seed."""
    init_sequence, order_sequence = np.random.SeedSequence(seed).spawn(2)
    return np.random.default_rng(init_sequence), np.random.default_rng(order_sequence)
