"""Fig. 6's learning-rate grid (icdenoise.studies.mssa.learning_rates): its points, the point the regression block
trains anyway, and a diverged point as a row of the grid's table."""

import numpy as np
import pandas as pd

from icdenoise.maths.training import TrainingDiverged
from icdenoise.studies.mssa.learning_rates import divergence_record, errors_path, grid_points, grid_table, wildcard

REGRESSION = {"tasks": ["linear", "sparse"], "models": {"mssa": {}, "transformer": {}}, "seeds": [0, 1],
              "learning_rate": 0.0001, "clip": 10.0}
GRID = {"learning_rates": [0.0001, 0.00005, 0.0002, 0.0004], "clips": [5.0, 10.0, 50.0]}


def test_every_task_model_rate_clip_and_seed_is_a_point_and_one_rate_clip_pair_is_the_blocks_own():
    points = grid_points(REGRESSION, GRID)
    assert len(points) == 2 * 2 * 4 * 3 * 2
    assert len({tuple(point.values()) for point in points}) == len(points)
    shared = [point for point in points if point["shared"]]
    assert len(shared) == 2 * 2 * 2 and {(point["learning_rate"], point["clip"]) for point in shared} == {(0.0001, 10.0)}
    assert grid_points({**REGRESSION, "learning_rate": 0.003}, GRID) == [{**point, "shared": False} for point in points]


def test_a_rate_is_its_shortest_round_trip_text():
    assert [wildcard(value) for value in (0.0001, 5e-05, 10, 0.003)] == ["0.0001", "5e-05", "10.0", "0.003"]
    assert all(float(wildcard(value)) == value for value in GRID["learning_rates"])


def test_the_table_has_the_error_at_the_most_examples_or_where_the_training_diverged():
    points = grid_points({**REGRESSION, "tasks": ["linear"], "models": {"mssa": {}}, "seeds": [0]},
                         {"learning_rates": [0.0001, 0.0004], "clips": [10.0]})
    errors = pd.DataFrame({"model": "mssa", "examples": [0, 1, 2], "normalized_mse": [0.9, 0.5, 0.2]})
    record = divergence_record(TrainingDiverged("mssa on linear: loss 3e6 at step 40", step=40, loss=3e6), "linear", "mssa", 0)
    table = grid_table(points, [errors, record])
    assert table["status"].tolist() == ["trained", "diverged"]
    assert table["normalized_mse"].iloc[0] == 0.2 and np.isnan(table["normalized_mse"].iloc[1])
    assert table["divergence_step"].iloc[1] == 40 and table["divergence_loss"].iloc[1] == 3e6
    assert pd.isna(table["divergence_step"].iloc[0])


def test_the_blocks_own_point_reads_the_regular_training_and_the_others_the_grids():
    own, grid = "r/{regression_task}/{architecture}/seed{training_seed}", "g/{regression_task}/{architecture}/lr{learning_rate}_clip{clip}/seed{training_seed}"
    shared, other = grid_points({**REGRESSION, "tasks": ["linear"], "models": {"mssa": {}}, "seeds": [3]},
                                {"learning_rates": [0.0001, 0.00005], "clips": [10.0]})
    assert errors_path(shared, own, grid) == "r/linear/mssa/seed3"
    assert errors_path(other, own, grid) == "g/linear/mssa/lr5e-05_clip10.0/seed3"
