"""The allowed name nearest to a misspelt one: the "did you mean epochs?" of a refused config key or value
(icdenoise.pipeline.config) and of a sweep key that names no setting (icdenoise.pipeline.sweeps). It imports
nothing of the package, so that both can import it."""

from __future__ import annotations

import difflib

# How alike (difflib's ratio) a misspelt name and the allowed one it suggests must be: epocks ~ epochs is 0.83,
# n_promts ~ n_prompts 0.94, while tpu ~ cpu (0.67) and learning_rate ~ lr_decay_at (0.5) suggest nothing.
SUGGESTION_CUTOFF = 0.7
# How alike a name of two or more words and the initials of its words are (learning_rate ~ lr, batch_size ~ bs):
# above the cutoff, below a one-letter slip in a long name (n_promts ~ n_prompts, 0.94).
INITIALS_LIKENESS = 0.9
# What each level of nesting between a name and an allowed key costs in the ranking (not against the cutoff): at
# equal likeness the key at the name's own level wins (traning: training, not execution.training), while a
# key one level down still wins over a poorer match at the name's level (sigma_z_sqq: corruption.sigma_z_sq at
# 0.95, not sigma0_sq at 0.80).
DEPTH_PENALTY = 0.05


def initials(name: str) -> str:
    """The first letters of a name's words (`learning_rate` → `lr`); '' for a name of fewer than two words."""
    words = [word for word in name.split("_") if word]
    return "".join(word[0] for word in words) if len(words) > 1 else ""


def _abbreviates(short: str, long: str) -> bool:
    return bool(short) and short == initials(long)


def likeness(name: str, option: str) -> float:
    """How alike a name and an allowed name are, from 0 to 1: difflib's ratio of the two, or of their last
    dotted parts, or INITIALS_LIKENESS where one's last part is the other's initials."""
    last, option_last = name.rsplit(".", 1)[-1], option.rsplit(".", 1)[-1]
    spelt = max(difflib.SequenceMatcher(None, name, option).ratio(), difflib.SequenceMatcher(None, last, option_last).ratio())
    abbreviated = _abbreviates(last, option_last) or _abbreviates(option_last, last)
    return max(spelt, INITIALS_LIKENESS if abbreviated else 0.0)


def nearest(name, allowed) -> str | None:
    """The allowed name closest to `name` (a misspelling of it, or its initials), or None when none is at least
    SUGGESTION_CUTOFF alike. A dotted name is also compared by its last part, so that `sigma_z_sqq` finds
    `corruption.sigma_z_sq` (a key a level too high); among the close names, each level of nesting between
    the two costs DEPTH_PENALTY, so that of two names about as alike the one at `name`'s level wins."""
    name, allowed = str(name), [str(option) for option in allowed]
    close = {option: likeness(name, option) for option in allowed}
    close = {option: alike for option, alike in close.items() if alike >= SUGGESTION_CUTOFF}
    depth = name.count(".")
    return max(close, key=lambda option: close[option] - DEPTH_PENALTY * abs(option.count(".") - depth), default=None)
