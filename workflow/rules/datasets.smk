rule sample_prompts:
    """One fixed dataset per case and context length, shared by every seed and model (PROTOCOL: Conventions)."""
    output:
        "results/datasets/{case}/L{L}.parquet",
    params:
        task=get_task_params,
        dataset=canonical(config["dataset"]),
    log:
        "logs/sample_prompts/{case}_L{L}.log",
    benchmark:
        "benchmarks/sample_prompts/{case}_L{L}.tsv"
    threads: 1
    priority: 1  # cheap, and every training job waits for it: run before the Bayes evaluations
    conda:
        "../envs/icdenoise.yaml"
    script:
        "../scripts/sample_prompts.py"
