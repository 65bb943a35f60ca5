"""The allowed name nearest to a misspelt one: the "did you mean epochs?" of a refused config key or value
(icdenoise.pipeline.config) and of a sweep key that names no setting (icdenoise.pipeline.sweeps). It imports
nothing of the package, so that both can import it."""

from __future__ import annotations

import difflib

# How alike (difflib's ratio) a misspelt name and the allowed one it suggests must be: epocks ~ epochs is 0.83,
# n_promts ~ n_prompts 0.94, while tpu ~ cpu (0.67) and learning_rate ~ lr_decay_at (0.5) suggest nothing.
SUGGESTION_CUTOFF = 0.7


def nearest(name, allowed) -> str | None:
    """The allowed name closest to `name` (a misspelling of it), or None when none is close. A dotted name is also
    compared by its last part, so that `sigma_z_sqq` finds `corruption.sigma_z_sq` (a key a level too high)."""
    name, allowed = str(name), [str(option) for option in allowed]

    def alike(option):
        last, option_last = name.rsplit(".", 1)[-1], option.rsplit(".", 1)[-1]
        return max(difflib.SequenceMatcher(None, name, option).ratio(), difflib.SequenceMatcher(None, last, option_last).ratio())

    best = max(allowed, key=alike, default=None)
    return best if best is not None and alike(best) >= SUGGESTION_CUTOFF else None
