"""A sweep's tidy table, against an independent computation on small synthetic tables: the ratio to the Bayes
posterior mean on the same prompts, the learned scales as diagonal means oriented α ≥ 0, and the theory's
β = 1/σ_z² and γ* = 1/(σ0²+σ_z²) where they apply; a point that shares its base case's jobs reads that case's
rows under its own name; a diverged training keeps a row per seed that says where it diverged, with no number invented."""

import numpy as np
import pandas as pd
import pytest

from icdenoise.experiments.sweep_table import sweep_table

LINEAR = {"task": "linear", "n": 2, "d": 1, "sigma0_sq": 2.0, "corruption": {"kind": "query", "sigma_z_sq": 1.0}, "L": 5}
MODELS = {"linear": {"architecture": "linear"}, "softmax": {"architecture": "softmax"}}


def points():
    return [{"case": f"linear.s{i}", "source": f"linear.s{i}", "base": "linear", "values": {"case.corruption.sigma_z_sq": s},
             "block": {**LINEAR, "corruption": {"kind": "query", "sigma_z_sq": s}}, "models": MODELS} for i, s in enumerate((0.5, 2.0))]


def weights(rng, cases=("linear.s0", "linear.s1"), models=MODELS):
    rows = []
    for case in cases:
        for model in models:
            for seed in (0, 1):
                for matrix in ("W_KQ", "W_PV"):
                    values = rng.normal(size=(2, 2))
                    for (row, col), value in np.ndenumerate(values):
                        rows.append(dict(case=case, L=5, model=model, seed=seed, stage="final", matrix=matrix, row=row, col=col, value=value))
                        rows.append(dict(case=case, L=5, model=model, seed=seed, stage="initial", matrix=matrix, row=row, col=col, value=9.0))
    return pd.DataFrame(rows)


def test_the_table_matches_a_direct_computation():
    rng = np.random.default_rng(0)
    bayes = pd.DataFrame({"case": ["linear.s0", "linear.s0", "linear.s1", "linear.s1"], "estimator": ["oracle", "zero"] * 2,
                          "mse": [0.2, 1.0, 0.6, 1.0]})
    scores = pd.DataFrame([dict(case=case, estimator=model, seed=seed, mse=rng.uniform(0.5, 1), sem=0.01)
                           for case in ("linear.s0", "linear.s1") for model in MODELS for seed in (0, 1)])
    frame = weights(rng)
    table = sweep_table("s", points(), bayes, scores, frame)
    assert len(table) == 8 and list(table["case.corruption.sigma_z_sq"].unique()) == [0.5, 2.0]
    for _, row in table.iterrows():
        final = frame[(frame["case"] == row.case) & (frame["model"] == row.model) & (frame["seed"] == row.seed) & (frame["stage"] == "final")]
        alpha = np.trace(final[final["matrix"] == "W_PV"].pivot(index="row", columns="col", values="value").to_numpy()) / 2
        beta = np.trace(final[final["matrix"] == "W_KQ"].pivot(index="row", columns="col", values="value").to_numpy()) / 2
        sign = np.sign(alpha)
        assert (row.alpha, row.beta, row.gamma) == pytest.approx((sign * alpha, sign * beta, alpha * beta))
        oracle = bayes[(bayes["case"] == row.case) & (bayes["estimator"] == "oracle")]["mse"].item()
        assert row.bayes_mse == oracle and row.ratio_to_bayes == pytest.approx(row.mse / oracle)
        sigma_z_sq = row["case.corruption.sigma_z_sq"]
        if row.model == "softmax":
            assert row.beta_theory == pytest.approx(1 / sigma_z_sq) and np.isnan(row.gamma_theory)
        else:
            assert row.gamma_theory == pytest.approx(1 / (2.0 + sigma_z_sq)) and np.isnan(row.beta_theory)
    assert (table["alpha"] >= 0).all()


def test_no_theory_where_it_predicts_none():
    sphere = {"task": "sphere", "n": 2, "d": 1, "radius": 1.0, "corruption": {"kind": "query", "sigma_z_sq": 0.1}, "L": 5}
    from icdenoise.experiments.sweep_table import theory

    assert np.isnan(theory(sphere, MODELS["linear"])[1]) and theory(sphere, MODELS["softmax"])[0] == pytest.approx(10.0)
    transformed = {**LINEAR, "transform": {"seed": 0, "condition_number": 3.0}}
    assert np.isnan(theory(transformed, MODELS["linear"])[1])
    all_tokens = {**sphere, "corruption": {"kind": "all_tokens", "sigma_z_sq": 0.1}}
    assert np.isnan(theory(all_tokens, MODELS["softmax"])[0])


def test_a_shared_points_rows_are_those_it_would_have_under_its_own_name():
    """Points s1 and s2 of a sweep are the configured case `linear` (σ_z² = 1.0, its models) and read its tables,
    which also hold a model the sweep does not train; the table equals the one built from each point's own
    tables holding the same numbers."""
    rng = np.random.default_rng(1)
    own = [{"case": f"linear.s{i}", "source": f"linear.s{i}", "base": "linear", "values": {"case.corruption.sigma_z_sq": s},
            "block": {**LINEAR, "corruption": {"kind": "query", "sigma_z_sq": s}}, "models": MODELS}
           for i, s in enumerate((0.5, 1.0, 1.0))]
    shared = [own[0], {**own[1], "source": "linear"}, {**own[2], "source": "linear"}]
    sources = ("linear.s0", "linear")
    bayes = pd.DataFrame({"case": [case for case in sources for _ in range(2)], "estimator": ["oracle", "zero"] * 2,
                          "mse": [0.2, 1.0, 0.6, 1.0]})
    scores = pd.DataFrame([dict(case=case, estimator=model, seed=seed, mse=rng.uniform(0.5, 1), sem=rng.uniform(0, 0.1))
                           for case in sources for model in (*MODELS, "stacked") for seed in (0, 1)])
    frame = weights(rng, sources, (*MODELS, "stacked"))
    table = sweep_table("s", shared, bayes, scores, frame)

    def as_own(source_frame, column):
        """The source case's rows of the sweep's models, once under each point's own name."""
        ours = source_frame[source_frame[column].isin(MODELS)]
        return pd.concat([ours[ours["case"] == "linear.s0"], *(ours[ours["case"] == "linear"].assign(case=point)
                                                              for point in ("linear.s1", "linear.s2"))], ignore_index=True)
    own_bayes = pd.concat([bayes[bayes["case"] == "linear.s0"], *(bayes[bayes["case"] == "linear"].assign(case=point)
                                                                  for point in ("linear.s1", "linear.s2"))])
    expected = sweep_table("s", own, own_bayes, as_own(scores, "estimator"), as_own(frame, "model"))
    assert list(table["case"].unique()) == ["linear.s0", "linear.s1", "linear.s2"] and len(table) == 12
    assert set(table["model"]) == set(MODELS)
    pd.testing.assert_frame_equal(table, expected)
    linear = scores[(scores["case"] == "linear") & (scores["estimator"] == "linear")]["mse"].to_numpy()
    assert (table[(table["case"] == "linear.s2") & (table["model"] == "linear")]["mse"].to_numpy() == linear).all()


def divergence_record(case, model, seeds):
    """A divergence record as rule train_ensemble writes one: `seeds` gives each seed's (status, train loss, test loss), at step 4."""
    return pd.DataFrame([dict(case=case, L=5, model=model, seed=seed, status=status, step=4, epoch=1.0, train_loss=train,
                              test_loss=test, zero_train_loss=0.3, zero_test_loss=0.3)
                         for seed, (status, train, test) in enumerate(seeds)])


def test_a_diverged_training_is_a_row_per_seed_with_its_step_and_loss_and_no_invented_number():
    """Point s1's softmax training diverged (seed 0 over the bound, seed 1 not finite): its rows keep the
    point's swept value and closed form, say where it diverged and have no MSE, ratio or learned scale; every
    other row is `trained`, with the numbers it has without any divergence."""
    rng = np.random.default_rng(2)
    bayes = pd.DataFrame({"case": ["linear.s0", "linear.s1"], "estimator": ["oracle", "oracle"], "mse": [0.2, 0.6]})
    scores = pd.DataFrame([dict(case=case, estimator=model, seed=seed, mse=rng.uniform(0.5, 1), sem=0.01)
                           for case in ("linear.s0", "linear.s1") for model in MODELS for seed in (0, 1)
                           if (case, model) != ("linear.s1", "softmax")])
    frame = weights(rng)
    frame = frame[~((frame["case"] == "linear.s1") & (frame["model"] == "softmax"))]
    diverged = divergence_record("linear.s1", "softmax", [("diverged", 75.0, 80.0), ("diverged", np.nan, 3.0)])
    table = sweep_table("s", points(), bayes, scores, frame, diverged)
    assert len(table) == 8
    rows = table[table["status"] != "trained"].set_index("seed")
    assert (rows["case"] == "linear.s1").all() and (rows["model"] == "softmax").all() and (rows["status"] == "diverged").all()
    assert rows["divergence_step"].tolist() == [4, 4]
    assert rows.loc[0, "divergence_loss"] == 80.0 and np.isnan(rows.loc[1, "divergence_loss"])  # the larger loss; NaN wins
    assert rows[["mse", "sem", "ratio_to_bayes", "alpha", "beta", "gamma"]].isna().all().all()
    assert (rows["bayes_mse"] == 0.6).all() and (rows["case.corruption.sigma_z_sq"] == 2.0).all()
    healthy = table[table["status"] == "trained"]
    expected = sweep_table("s", points(), bayes, scores, frame)  # the same tables without the record
    pd.testing.assert_frame_equal(healthy.reset_index(drop=True), expected)
    assert healthy["divergence_step"].isna().all() and healthy["divergence_loss"].isna().all()


def test_a_sweep_whose_every_training_diverged_still_has_its_table():
    points_ = points()[:1]
    bayes = pd.DataFrame({"case": ["linear.s0"], "estimator": ["oracle"], "mse": [0.2]})
    scores = pd.DataFrame({"case": pd.Series(dtype=object), "estimator": pd.Series(dtype=object), "seed": pd.Series(dtype="int64"),
                           "mse": pd.Series(dtype=float), "sem": pd.Series(dtype=float)})
    diverged = pd.concat([divergence_record("linear.s0", model, [("stopped", 1.0, 1.0), ("diverged", np.inf, 1.0)])
                          for model in MODELS], ignore_index=True)
    table = sweep_table("s", points_, bayes, scores, pd.DataFrame(), diverged)
    assert table[["model", "seed", "status"]].values.tolist() == [
        ["linear", 0, "stopped"], ["linear", 1, "diverged"], ["softmax", 0, "stopped"], ["softmax", 1, "diverged"]]
    assert table["mse"].isna().all() and table["divergence_loss"].tolist() == [1.0, np.inf, 1.0, np.inf]
