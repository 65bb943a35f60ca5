rule train_ensemble:
    """All seeds of one configured model on one case's dataset, trained together (Adam, MSE/n)."""
    input:
        "results/datasets/{case}/L{L}.parquet",
        code=code("train_ensemble.py"),
    output:
        losses="results/train/{case}/L{L}/{model}/losses.parquet",
        weights="results/train/{case}/L{L}/{model}/weights.parquet",
    params:
        training=get_training_params,
        model=lambda wildcards: canonical(config["models"][wildcards.model]),
    log:
        "logs/train_ensemble/{case}_L{L}_{model}.log",
    benchmark:
        "benchmarks/train_ensemble/{case}_L{L}_{model}.tsv"
    threads: config["training"]["threads"]
    priority: longest_first("train_ensemble.py")
    resources:
        **job_resources("train_ensemble.py"),
    conda:
        "../envs/icdenoise.yaml"
    script:
        "../scripts/train_ensemble.py"
