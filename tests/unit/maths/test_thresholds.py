"""The threshold crossing of a phase diagram against hand-computed values."""

import numpy as np
import pytest

from icdenoise.maths.thresholds import ALWAYS, NEVER, log_crossing


def test_the_crossing_is_interpolated_linearly_in_log_x():
    """Scores 0.2 at x = 4 and 1.0 at x = 16 cross 0.6 halfway in log x: at x = 8."""
    value, reason = log_crossing([2, 4, 16, 32], [0.0, 0.2, 1.0, 1.0], 0.6)
    assert reason == ""
    assert value == pytest.approx(8.0)


def test_the_first_crossing_counts_and_seeds_are_averaged():
    """Seeds at one x are averaged (0.5 and 0.9 give 0.7 ≥ 0.6 at x = 4), and a later dip does not move the crossing."""
    value, _ = log_crossing([1, 1, 4, 4, 16], [0.1, 0.3, 0.5, 0.9, 0.2], 0.6)
    fraction = (0.6 - 0.2) / (0.7 - 0.2)
    assert value == pytest.approx(np.exp(fraction * np.log(4)))


def test_a_grid_that_does_not_bracket_the_threshold_says_why():
    assert log_crossing([1, 2, 4], [0.1, 0.2, 0.3], 0.9)[1] == NEVER
    assert np.isnan(log_crossing([1, 2, 4], [0.1, 0.2, 0.3], 0.9)[0])
    assert log_crossing([1, 2, 4], [0.95, 1.0, 1.0], 0.9)[1] == ALWAYS


def test_bad_grids_are_refused():
    with pytest.raises(ValueError, match="positive"):
        log_crossing([0, 1], [0.0, 1.0], 0.5)
    with pytest.raises(ValueError, match="paired"):
        log_crossing([1, 2], [0.0], 0.5)
