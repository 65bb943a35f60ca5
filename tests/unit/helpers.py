"""Shared test helpers."""

from icdenoise.maths.cases import Case
from icdenoise.maths.corruptions import AllTokenNoise, QueryNoise


def query_case(task, sigma_z_sq: float) -> Case:
    """The core paper's setting: clean context, one query with noise of variance σ_z²."""
    return Case(task, QueryNoise(sigma_z_sq))


def all_token_case(task, sigma_z_sq: float) -> Case:
    """Every token noisy with variance σ_z², every token a target."""
    return Case(task, AllTokenNoise(sigma_z_sq))


def stopped_at_every_save_point(train, path):
    """`train(checkpoint)` run with a spent time budget (`Checkpoint(..., budget_s=0.0)`) until it returns: it stops at
    its first save point after where it started, saved, and a new start continues it; so it stops once at every save
    point. Returns its result and the stops; the finished run must have removed its checkpoint at `path`."""
    from icdenoise.pipeline.checkpoints import Checkpoint, Stopped

    stops = []
    while True:
        checkpoint = Checkpoint(path, {"run": "test"}, every_s=None, budget_s=0.0)
        try:
            result = train(checkpoint)
        except Stopped as stopped:
            checkpoint.close()
            assert "run the same command to continue" in str(stopped) and path.is_file()
            stops.append(checkpoint.last_step)
            continue
        checkpoint.finish()
        assert not path.exists()
        return result, stops
