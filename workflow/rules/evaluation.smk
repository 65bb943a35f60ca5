# The shared evaluation stage: closed forms and trained models on the same fresh prompts of each case.

job_rule(
    "evaluate_bayes",
    "Every closed form that applies to the case - Bayes posterior means (eqs. 3, 6, 7, 8), plug-ins, the "
    "attention forms of eqs. 10 and 13, the zero predictor - on fresh prompts (Sec. 2.3); for a task of one's own, its "
    "Bayes posterior mean where it has one, and the zero predictor.",
    "../scripts/evaluate_bayes.py",
    "<results>/bayes/{case}/L{L}.parquet",
    input=dict(task_code=user_task_files),
    params=dict(case=get_case_params, evaluation=canonical(config["evaluation"])),
    threads=config["execution"]["evaluation"]["threads"],
    cache=True,
)

job_rule(
    "evaluate_trained",
    "Every model trained on the case at this L, scored per seed on the same fresh prompts as evaluate_bayes.",
    "../scripts/evaluate_trained.py",
    "<results>/trained_scores/{case}/L{L}.parquet",
    input=dict(
        weights=lambda wildcards: [
            training_path(wildcards.case, model, "weights", wildcards.L)
            for model in models_trained_at(wildcards.case, wildcards.L)
        ],
        model_code=lambda wildcards: user_model_files(models_trained_at(wildcards.case, wildcards.L)),
        task_code=user_task_files,
    ),
    params=dict(
        case=get_case_params,
        evaluation=canonical(config["evaluation"]),
        models=lambda wildcards: models_trained_at(wildcards.case, wildcards.L),
    ),
    threads=config["execution"]["evaluation"]["threads"],
    cache=True,
)
