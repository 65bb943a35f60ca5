rule evaluate_bayes:
    """Every closed form that applies to the case - Bayes posterior means (eqs. 3, 6, 7, 8), plug-ins,
    the attention forms of eqs. 10 and 13, the zero predictor - on fresh prompts (Sec. 2.3)."""
    input:
        code=code("evaluate_bayes.py"),
    output:
        "results/bayes/{case}/L{L}.parquet",
    params:
        case=get_case_params,
        evaluation=canonical(config["evaluation"]),
    log:
        "logs/evaluate_bayes/{case}_L{L}.log",
    benchmark:
        "benchmarks/evaluate_bayes/{case}_L{L}.tsv"
    threads: config["evaluation"]["threads"]
    priority: longest_first("evaluate_bayes.py")
    resources:
        **job_resources("evaluate_bayes.py"),
    conda:
        "../envs/icdenoise.yaml"
    script:
        "../scripts/evaluate_bayes.py"


rule evaluate_trained:
    """Every model trained on the case at this L, scored per seed on the same fresh prompts as evaluate_bayes."""
    input:
        weights=lambda wildcards: [training_path(wildcards.case, model, "weights", wildcards.L) for model in models_trained_at(wildcards.case, wildcards.L)],
        code=code("evaluate_trained.py"),
    output:
        "results/trained_scores/{case}/L{L}.parquet",
    params:
        case=get_case_params,
        evaluation=canonical(config["evaluation"]),
        models=lambda wildcards: models_trained_at(wildcards.case, wildcards.L),
    log:
        "logs/evaluate_trained/{case}_L{L}.log",
    benchmark:
        "benchmarks/evaluate_trained/{case}_L{L}.tsv"
    threads: config["evaluation"]["threads"]
    priority: longest_first("evaluate_trained.py")
    resources:
        **job_resources("evaluate_trained.py"),
    conda:
        "../envs/icdenoise.yaml"
    script:
        "../scripts/evaluate_trained.py"
