"""When a memory-study training has diverged: a cross-entropy that is not finite, or over `DIVERGENCE_FACTOR` times the
uniform predictor's, log(classes) (what all-zero logits score), the rule the ensembles apply to their squared loss
against the zero predictor's (icdenoise.maths.training). A healthy run starts near log(classes) and falls."""

from __future__ import annotations

import math

from icdenoise.maths.training import DIVERGENCE_FACTOR, TrainingDiverged


def first_diverged(losses, classes: int) -> int | None:
    """The index of the first loss in `losses` that is not finite or over DIVERGENCE_FACTOR · log(classes), or None."""
    bound = DIVERGENCE_FACTOR * math.log(classes)
    return next((index for index, loss in enumerate(map(float, losses)) if not math.isfinite(loss) or loss > bound), None)


def check_losses(losses, classes: int, run: str, first_step: int = 0) -> None:
    """Raise `TrainingDiverged` naming `run` and the step (first_step + index) of the `first_diverged` loss, if any."""
    index = first_diverged(losses, classes)
    if index is not None:
        loss = float(losses[index])
        raise TrainingDiverged(f"{run}: cross-entropy {loss:.4g} at step {first_step + index}, not finite or over "
                               f"{DIVERGENCE_FACTOR:g} times the uniform predictor's log({classes}) = {math.log(classes):.4g}")
