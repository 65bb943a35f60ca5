rule sample_prompts:
    """One fixed dataset per case and context length: the task's clean tokens, corrupted by the case's
    corruption; shared by every seed and model (PROTOCOL: Conventions)."""
    input:
        code=code("sample_prompts.py"),
    output:
        "results/datasets/{case}/L{L}.parquet",
    params:
        case=get_case_params,
        dataset=canonical(config["dataset"]),
    log:
        "logs/sample_prompts/{case}_L{L}.log",
    benchmark:
        "benchmarks/sample_prompts/{case}_L{L}.tsv"
    threads: 1
    priority: DATASET_PRIORITY  # above every training's and evaluation's: a dataset takes about a second, and trainings wait for it
    resources:
        **job_resources("sample_prompts.py"),
    conda:
        "../envs/icdenoise.yaml"
    script:
        "../scripts/sample_prompts.py"
