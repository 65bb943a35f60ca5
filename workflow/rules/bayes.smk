rule evaluate_bayes:
    """Bayes-optimal, plug-in and zero baselines on fresh prompts (Sec. 2.3, eqs. 3, 6, 7, 8, 10, 13)."""
    output:
        "results/bayes/{case}/L{L}.parquet",
    params:
        task=get_task_params,
        bayes=canonical(config["bayes"]),
    log:
        "logs/evaluate_bayes/{case}_L{L}.log",
    benchmark:
        "benchmarks/evaluate_bayes/{case}_L{L}.tsv"
    threads: config["bayes"]["threads"]
    conda:
        "../envs/icdenoise.yaml"
    script:
        "../scripts/evaluate_bayes.py"
