# The shared training stage: every run some study or the leaderboard needs, keyed by (case, L, model).

job_rule(
    "train_ensemble",
    "All seeds of one configured model on one case's dataset, trained together (Adam, MSE/n).",
    "../scripts/train_ensemble.py",
    dict(
        losses="<results>/train/{case}/L{L}/{model}/losses.parquet",
        weights="<results>/train/{case}/L{L}/{model}/weights.parquet",
    ),
    input=dict(
        dataset="<results>/datasets/{case}/L{L}.parquet",
        model_code=lambda wildcards: user_model_files([wildcards.model]),
    ),
    params=dict(training=get_training_params, model=get_model_params),
    threads=config["execution"]["training"]["threads"],
    cache=True,
)
